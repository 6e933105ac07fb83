import { Worker } from 'node:worker_threads';
import type { FileKind } from '../../../common/contract/files.ts';
import { workerModule } from '../../worker-module.ts';
import { type ExtractedDocument, ExtractionError } from './document.ts';
import type { ExtractReply, ExtractRequest } from './extractor-messages.ts';

const { entry: ENTRY, module: MODULE } = workerModule('extractor-thread');

/** `ocr`: pages without a text layer are read by text recognition (LOCALIQ_OCR; off when absent). */
export type ExtractionLimits = { timeoutMs: number; memoryMb: number; ocr?: boolean };

/**
 * Text extraction off the pipeline worker's own thread, with a cap on its time and memory: a file
 * that holds the parser longer than `timeoutMs`, or needs more than `memoryMb` of heap, ends its
 * thread (the job fails with that reason) and the next file gets a fresh one. One file at a time.
 * Text recognition runs in a thread of its own that the extraction thread starts (tesseract.js):
 * ending the extraction thread ends it too, and the time cap covers it.
 */
export class FileExtractor {
  private worker: Worker | null = null;
  private nextId = 0;

  constructor(private readonly limits: ExtractionLimits) {}

  extract(file: string, kind: FileKind): Promise<ExtractedDocument> {
    const worker = (this.worker ??= this.start());
    const id = ++this.nextId;
    let progress: string | null = null;
    return new Promise<ExtractedDocument>((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        settle();
      };
      const discard = () => {
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
      };
      const onMessage = (reply: ExtractReply) => {
        if (reply.id !== id) return;
        if ('progress' in reply) progress = reply.progress;
        else if (reply.ok) finish(() => resolve(reply.document));
        else finish(() => reject(reply.fileFault ? new ExtractionError(reply.message) : new Error(reply.message)));
      };
      const onError = (error: Error & { code?: string }) => {
        discard();
        finish(() =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new ExtractionError(
                  `reading it needed more than ${this.limits.memoryMb} MB of memory (a file built to exhaust the reader, or one far larger than usual); it was stopped`,
                )
              : new Error(`the file reader failed: ${error.message}`),
          ),
        );
      };
      const onExit = (code: number) => {
        discard();
        finish(() => reject(new Error(`the file reader stopped (exit code ${code})`)));
      };
      const timer = setTimeout(() => {
        discard();
        finish(() =>
          reject(
            new ExtractionError(
              progress
                ? `reading it took longer than ${Math.round(this.limits.timeoutMs / 1000)} s (${progress}); it was stopped. A long scan needs more time: raise LOCALIQ_EXTRACT_TIMEOUT_MS`
                : `reading it took longer than ${Math.round(this.limits.timeoutMs / 1000)} s (a file with a pathological structure, or one far larger than usual); it was stopped`,
            ),
          ),
        );
      }, this.limits.timeoutMs);
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage({ id, file, kind, ocr: this.limits.ocr ?? false } satisfies ExtractRequest);
    });
  }

  private start(): Worker {
    const worker = new Worker(ENTRY, {
      workerData: { module: MODULE },
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: 16 },
    });
    // Idle, it does not keep the process alive.
    worker.unref();
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }
}
