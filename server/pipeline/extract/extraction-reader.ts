import { fork } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { processModule, workerModule } from '../../worker-module.ts';
import type { ExtractReply, ExtractRequest, ReaderReady } from './extractor-messages.ts';

/**
 * Why a reader ended on its own: its JavaScript heap reached its cap (`heap`), or it stopped
 * otherwise (a crash, a signal from outside).
 */
export type ReaderEnd = { heap: boolean; detail: string };

/**
 * What reads files for a FileExtractor (extractor-child.ts), one request at a time:
 * - a child process, where it can start one (`localiq serve` under Node): the OS gives all of its
 *   memory back when it ends, so the extractor can bound and watch its resident memory (`pid`);
 * - a worker thread in the desktop app, whose Electron binary cannot run as plain Node (the
 *   packaged app turns that off: electron-builder.yml, runAsNode): there only its heap is bounded.
 */
export type Reader = {
  /** The process to watch the memory of; null for a thread. */
  pid: number | null;
  /** Resolves once its code has loaded (it said so), rejects if it ended first. */
  ready: Promise<void>;
  send(request: ExtractRequest): void;
  onMessage(listener: (reply: ExtractReply) => void): () => void;
  onEnd(listener: (end: ReaderEnd) => void): () => void;
  stop(): Promise<void>;
};

export function startReader(memoryMb: number): Reader {
  return process.versions.electron ? startThread(memoryMb) : startProcess(memoryMb);
}

/** Most of the child's error output kept: enough for V8's last words on running out of heap. */
const STDERR_KEPT = 4096;

function startProcess(memoryMb: number): Reader {
  const { entry, execArgv } = processModule('extractor-child');
  const child = fork(entry, [], {
    execArgv: [...execArgv, `--max-old-space-size=${memoryMb}`],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_KEPT);
  });
  // Idle (between files), it does not keep the pipeline worker alive; starting, it does.
  const idle = () => {
    child.unref();
    child.channel?.unref();
  };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid ?? null,
    ready: readyOf(child),
    send(request) {
      child.ref();
      child.channel?.ref();
      child.send(request);
    },
    onMessage(listener) {
      const wrapped = (reply: ExtractReply | ReaderReady) => {
        if ('ready' in reply) return;
        if (!('progress' in reply)) idle();
        listener(reply);
      };
      child.on('message', wrapped);
      return () => child.off('message', wrapped);
    },
    onEnd(listener) {
      const onExit = (code: number | null, signal: string | null) =>
        // The stream of its error output can end after 'exit': a turn later it has been read.
        setImmediate(() => listener({ heap: /heap limit|heap out of memory/i.test(stderr), detail: signal ? `signal ${signal}` : `exit code ${code}` }));
      const onError = (error: Error) => listener({ heap: false, detail: error.message });
      child.once('exit', onExit);
      child.once('error', onError);
      return () => {
        child.off('exit', onExit);
        child.off('error', onError);
      };
    },
    async stop() {
      // Held until it has ended: an unreferenced child's exit would not keep the caller waiting for it.
      child.ref();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

function startThread(memoryMb: number): Reader {
  const { entry, module } = workerModule('extractor-child');
  const worker = new Worker(entry, {
    workerData: { module },
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 16 },
  });
  worker.unref();
  return {
    pid: null,
    ready: readyOf(worker),
    send: (request) => worker.postMessage(request),
    onMessage(listener) {
      const wrapped = (reply: ExtractReply | ReaderReady) => {
        if (!('ready' in reply)) listener(reply);
      };
      worker.on('message', wrapped);
      return () => worker.off('message', wrapped);
    },
    onEnd(listener) {
      const onError = (error: Error & { code?: string }) => listener({ heap: error.code === 'ERR_WORKER_OUT_OF_MEMORY', detail: error.message });
      const onExit = (code: number) => listener({ heap: false, detail: `exit code ${code}` });
      worker.once('error', onError);
      worker.once('exit', onExit);
      return () => {
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
    },
    async stop() {
      await worker.terminate();
    },
  };
}

type Emitter = {
  on(event: 'message', listener: (message: ExtractReply | ReaderReady) => void): unknown;
  off(event: 'message', listener: (message: ExtractReply | ReaderReady) => void): unknown;
  once(event: 'exit', listener: () => void): unknown;
  off(event: 'exit', listener: () => void): unknown;
};

function readyOf(reader: Emitter): Promise<void> {
  const ready = new Promise<void>((resolve, reject) => {
    const onMessage = (message: ExtractReply | ReaderReady) => {
      if (!('ready' in message)) return;
      done();
      resolve();
    };
    const onExit = () => {
      done();
      reject(new Error('the file reader ended before it was ready'));
    };
    const done = () => {
      reader.off('message', onMessage);
      reader.off('exit', onExit);
    };
    reader.on('message', onMessage);
    reader.once('exit', onExit);
  });
  ready.catch(() => {}); // read by the extractor; a reader stopped unused is no error
  return ready;
}
