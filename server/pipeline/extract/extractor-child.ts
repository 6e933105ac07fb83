/**
 * The thread that reads files (extractor.ts starts it): a parser stuck on a hostile file, or
 * running out of memory on it, takes this thread down, never the pipeline worker.
 */
import { parentPort } from 'node:worker_threads';
import { ExtractionError } from './document.ts';
import { extractFile } from './extract-file.ts';
import type { ExtractReply, ExtractRequest } from './extractor-messages.ts';

const port = parentPort!;
port.on('message', (request: ExtractRequest) => {
  const onOcrPage = (page: number, pages: number) =>
    port.postMessage({ id: request.id, progress: `text recognition (OCR) was reading page ${page} of ${pages}` } satisfies ExtractReply);
  extractFile(request.file, request.kind, { ocr: request.ocr, onOcrPage }).then(
    (document) => port.postMessage({ id: request.id, ok: true, document } satisfies ExtractReply),
    (error: unknown) =>
      port.postMessage({
        id: request.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        fileFault: error instanceof ExtractionError,
      } satisfies ExtractReply),
  );
});
