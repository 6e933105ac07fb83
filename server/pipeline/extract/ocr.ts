import { createRequire } from 'node:module';
import path from 'node:path';
import { createWorker, OEM, PSM } from 'tesseract.js';
import { cleanText } from '../text/clean-text.ts';
import type { GreyImage } from './page-images.ts';

const require = createRequire(import.meta.url);

/**
 * English text recognition by tesseract.js (Tesseract 5 compiled to WebAssembly) with the model of
 * @tesseract.js-data/eng, both from node_modules: nothing is fetched. tesseract.js would otherwise
 * download the model from a CDN (its default langPath) and cache it in the working folder; here
 * the model is read from the package and never written anywhere (cacheMethod 'none'). The core
 * (the .wasm) is always loaded from tesseract.js-core by require.
 *
 * The "best_int" model is the LSTM engine's quantised model (2.9 MB): the faster of the two the
 * package ships, with the legacy engine left out (OEM.LSTM_ONLY).
 */
const MODEL_DIR = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

/**
 * The recogniser itself failed (it could not start, or crashed on a picture): no fault of the
 * file, so the job is tried again like any other failure of the reader.
 */
export class OcrFailure extends Error {
  override readonly name = 'OcrFailure';
  constructor(cause: unknown) {
    super(`text recognition (OCR) failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** One recogniser: started per file (its own thread, about 1 s and 100-200 MB), ended with it. */
export type Recognizer = { recognize(image: GreyImage, dpi: number): Promise<string>; close(): Promise<void> };

export async function startRecognizer(): Promise<Recognizer> {
  try {
    return await start();
  } catch (error) {
    throw new OcrFailure(error);
  }
}

async function start(): Promise<Recognizer> {
  const worker = await createWorker('eng', OEM.LSTM_ONLY, {
    langPath: MODEL_DIR,
    gzip: true,
    cacheMethod: 'none',
    // Its progress messages are not wanted; its errors come back as rejected promises.
    logger: () => {},
    errorHandler: () => {},
  });
  // A scanned page: columns and blocks of text found by Tesseract itself. Its diagnostics
  // ("Estimating resolution as …") go nowhere rather than to the server's output.
  await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO, debug_file: '/dev/null' }).catch(async (error: unknown) => {
    await worker.terminate().catch(() => {});
    throw error;
  });
  return {
    async recognize(image, dpi) {
      // The scan's resolution, which a PGM cannot carry: Tesseract sizes its text lines by it.
      // (A Tesseract parameter for this call; tesseract.js's types list only its own options.)
      const options = { user_defined_dpi: String(Math.round(dpi)) } as unknown as Parameters<typeof worker.recognize>[1];
      try {
        const { data } = await worker.recognize(portableGreyMap(image), options, { text: true });
        return cleanText(data.text);
      } catch (error) {
        throw new OcrFailure(error);
      }
    },
    close: () => worker.terminate().then(() => undefined),
  };
}

/**
 * The picture as a binary PGM (P5): the simplest file Tesseract's image reader (Leptonica) takes,
 * a header and the grey bytes, so no image encoder is needed.
 */
export function portableGreyMap({ width, height, pixels }: GreyImage): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1'), pixels]);
}
