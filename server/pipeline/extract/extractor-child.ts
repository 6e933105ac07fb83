/**
 * What reads files (extractor.ts starts it): a child process of its own, or in the desktop app a
 * worker thread. A parser stuck on a hostile file, or running out of memory on it, takes this
 * down, never the pipeline worker; in a process, the memory it took goes back to the system with it.
 */
import { parentPort, Worker } from 'node:worker_threads';
import { ExtractionError } from './document.ts';
import { extractFile } from './extract-file.ts';
import type { ExtractReply, ExtractRequest, ReaderReady } from './extractor-messages.ts';
import { loadPdfReader } from './pdf.ts';

type Port = { on(event: 'message', listener: (request: ExtractRequest) => void): unknown; postMessage(reply: ExtractReply | ReaderReady): void };

/**
 * Its server gone (stopped, or killed with no chance to end its children), a reading process has
 * no one to answer and no one watching its memory: it ends rather than linger. Between files the
 * IPC channel's end says so; while a parser holds the main thread (a bomb being inflated), a
 * thread of its own notices the parent has changed and kills the process.
 */
function endWithParent(): void {
  process.on('disconnect', () => process.exit(0));
  const watchdog = new Worker(
    `const { workerData } = require('node:worker_threads');
     setInterval(() => { if (process.ppid !== workerData.parent) process.kill(workerData.self, 'SIGKILL'); }, 1000);`,
    { eval: true, workerData: { parent: process.ppid, self: process.pid }, resourceLimits: { maxOldGenerationSizeMb: 8 } },
  );
  watchdog.unref();
}

function processPort(): Port {
  endWithParent();
  return { on: (event, listener) => process.on(event, listener), postMessage: (reply) => process.send!(reply) };
}

const port: Port = parentPort ?? processPort();
port.on('message', (request: ExtractRequest) => {
  const onOcrPage = (page: number, pages: number) =>
    port.postMessage({ id: request.id, progress: `text recognition (OCR) was reading page ${page} of ${pages}` });
  extractFile(request.file, request.kind, { ocr: request.ocr, onOcrPage }).then(
    (document) => port.postMessage({ id: request.id, ok: true, document }),
    (error: unknown) =>
      port.postMessage({
        id: request.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        fileFault: error instanceof ExtractionError,
      }),
  );
});
// Its parsers loaded (pdf.js on first use otherwise), a file's time cap is its reading alone. A
// failure to load shows with the first PDF, as the reason of its job.
await loadPdfReader().catch(() => {});
port.postMessage({ ready: true });
