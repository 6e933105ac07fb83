import { FILE_LIMITS, type FileKind } from '../../../common/contract/files.ts';
import { type ExtractedDocument, ExtractionError } from './document.ts';
import type { ExtractReply, ExtractRequest } from './extractor-messages.ts';
import { type Reader, startReader } from './extraction-reader.ts';
import { residentMb } from './resident-memory.ts';

export type ExtractionLimits = {
  timeoutMs: number;
  /** Most memory reading one file may take: the reader's whole resident memory where it is a process. */
  memoryMb: number;
  /** Pages without a text layer are read by text recognition (LOCALIQ_OCR; off when absent). */
  ocr?: boolean;
  /** Most characters of text one file may yield (FILE_LIMITS.textCharacters when not given). */
  maxTextChars?: number;
};

/** How often a reading process's resident memory is looked at: pdf.js inflates a few hundred MB a second. */
const MEMORY_WATCH_MS = 50;
/** A reader left idle this long is ended, and the memory its last file left in it goes back. */
const IDLE_MS = 30_000;
/**
 * Longest a reader may take to start (load its code) before the file's own time cap starts: a
 * reader that does not start is the machine's fault, not the file's, and the job is tried again.
 */
const START_MS = 120_000;

/**
 * Text extraction off the pipeline worker's own thread, with a cap on its time and memory, one
 * file at a time, in a long-lived reader (extraction-reader.ts: a child process; a thread in the
 * desktop app). A file that holds the parser longer than `timeoutMs`, or makes the reader need
 * more than `memoryMb`, ends the reader (the job fails with that reason) and the next file gets a
 * fresh one. The cap holds for everything the reader allocates: its heap is bounded by V8
 * (`--max-old-space-size`), and its resident memory (pdf.js's decoded streams, mammoth's and
 * OCR's buffers, WebAssembly memories, which live outside the heap) is watched every 50 ms and the
 * process killed past the cap; the OS then takes all of it back. A reader left holding more than
 * half the cap after a file, or idle for 30 s, is ended too, so memory is not kept.
 *
 * A file whose text is longer than `maxTextChars` fails too: cutting it short would leave its end
 * unsearchable without anyone knowing. Text recognition runs in a thread the reader starts
 * (tesseract.js): ending the reader ends it too, and both caps cover it.
 */
export class FileExtractor {
  private reader: Reader | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private nextId = 0;

  constructor(private readonly limits: ExtractionLimits) {}

  async extract(file: string, kind: FileKind): Promise<ExtractedDocument> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const reader = (this.reader ??= startReader(this.limits.memoryMb));
    try {
      await this.started(reader);
      return await this.read(reader, file, kind);
    } finally {
      await this.afterFile(reader);
    }
  }

  /** Waits for a reader to have loaded its code, so a slow start (a busy machine) is not charged to the file. */
  private async started(reader: Reader): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the file reader did not start within ${START_MS / 1000} s`)), START_MS);
    });
    try {
      await Promise.race([reader.ready, late]);
    } catch (error) {
      if (this.reader === reader) this.reader = null;
      await reader.stop();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private read(reader: Reader, file: string, kind: FileKind): Promise<ExtractedDocument> {
    const { memoryMb, timeoutMs } = this.limits;
    const id = ++this.nextId;
    let progress: string | null = null;
    let overMemory = false;
    return new Promise<ExtractedDocument>((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        clearInterval(watch);
        offMessage();
        offEnd();
        settle();
      };
      const discard = () => {
        if (this.reader === reader) this.reader = null;
        void reader.stop();
      };
      const outOfMemory = () =>
        new ExtractionError(
          `reading it needed more than ${memoryMb} MB of memory (LOCALIQ_EXTRACT_MEMORY_MB; a file built to exhaust the reader, or one far larger than usual); it was stopped`,
        );
      const offMessage = reader.onMessage((reply: ExtractReply) => {
        if (reply.id !== id) return;
        if ('progress' in reply) progress = reply.progress;
        else if (reply.ok) {
          const problem = textOverCap(reply.document, this.limits.maxTextChars ?? FILE_LIMITS.textCharacters);
          finish(() => (problem ? reject(problem) : resolve(reply.document)));
        } else finish(() => reject(reply.fileFault ? new ExtractionError(reply.message) : new Error(reply.message)));
      });
      const offEnd = reader.onEnd((end) => {
        discard();
        finish(() => reject(overMemory || end.heap ? outOfMemory() : new Error(`the file reader stopped (${end.detail})`)));
      });
      // The reader's resident memory, where it is a process: past the cap it is killed at once,
      // and its end (above) fails the file with the reason.
      const watch = setInterval(() => {
        if (reader.pid === null) return;
        void residentMb(reader.pid).then((mb) => {
          if (mb === null || mb <= memoryMb || overMemory) return;
          overMemory = true;
          discard();
        });
      }, MEMORY_WATCH_MS);
      if (reader.pid === null) clearInterval(watch);
      const timer = setTimeout(() => {
        discard();
        finish(() =>
          reject(
            new ExtractionError(
              progress
                ? `reading it took longer than ${Math.round(timeoutMs / 1000)} s (${progress}); it was stopped. A long scan needs more time: raise LOCALIQ_EXTRACT_TIMEOUT_MS`
                : `reading it took longer than ${Math.round(timeoutMs / 1000)} s (a file with a pathological structure, or one far larger than usual); it was stopped`,
            ),
          ),
        );
      }, timeoutMs);
      reader.send({ id, file, kind, ocr: this.limits.ocr ?? false } satisfies ExtractRequest);
    });
  }

  /** Ends a reader that kept much of the cap after its file; ends any reader after a while idle. */
  private async afterFile(reader: Reader): Promise<void> {
    if (this.reader !== reader) return;
    const mb = reader.pid === null ? null : await residentMb(reader.pid);
    if (mb !== null && mb > this.limits.memoryMb / 2) {
      this.reader = null;
      await reader.stop();
      return;
    }
    this.idleTimer = setTimeout(() => {
      if (this.reader !== reader) return;
      this.reader = null;
      void reader.stop();
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  /** The reading process now, if there is one (benchmarks read its memory). */
  get readerPid(): number | null {
    return this.reader?.pid ?? null;
  }

  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const reader = this.reader;
    this.reader = null;
    await reader?.stop();
  }
}

/** The failure of a document whose text is longer than one file may hold, or null. */
function textOverCap(document: ExtractedDocument, maxChars: number): ExtractionError | null {
  let length = 0;
  for (const section of document.sections) length += section.text.length;
  if (length <= maxChars) return null;
  const n = (count: number) => count.toLocaleString('en-US');
  return new ExtractionError(
    `its text is ${n(length)} characters, more than the ${n(maxChars)} one file may hold (LOCALIQ_FILE_MAX_TEXT_CHARS); split it into smaller files`,
  );
}
