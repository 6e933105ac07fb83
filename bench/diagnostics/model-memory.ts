/**
 * What one thread holding USE-lite costs in resident memory, step by step: the process's RSS before
 * the thread starts, once it has loaded the model, after one short query, and after batches of
 * passages of each size; the WASM heap's size and the thread's V8 heap beside it.
 *
 * Usage: node --import tsx bench/diagnostics/model-memory.ts [--young MB] [--batch 8] [--sizes 1,4,8]
 *   --young MB   the thread's maxYoungGenerationSizeMb (V8's default without it)
 *   --batch N    the embedder's batchSize (most texts in one model call)
 *   --sizes      how many 128-piece passages to embed in each step, one step after another
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const statusMb = (key: string) => Number(fs.readFileSync('/proc/self/status', 'utf8').match(new RegExp(`${key}:\\s+(\\d+)`))![1]) / 1024;

if (isMainThread) {
  const { values } = parseArgs({ options: { young: { type: 'string' }, batch: { type: 'string', default: '8' }, sizes: { type: 'string', default: '1,4,8' } } });
  const before = statusMb('VmRSS');
  // worker-entry.js registers tsx in the thread, then imports this file again (the thread's side).
  const worker = new Worker(path.join(import.meta.dirname, '../../server/worker-entry.js'), {
    workerData: { module: import.meta.url, batch: Number(values.batch), sizes: values.sizes.split(',').map(Number) },
    ...(values.young ? { resourceLimits: { maxYoungGenerationSizeMb: Number(values.young) } } : {}),
  });
  const rows: Array<Record<string, string | number>> = [];
  worker.on('message', (step: { label: string; wasmMb: number; heapMb: number; newSpaceMb: number }) => {
    rows.push({ step: step.label, threadRssMb: Math.round(statusMb('VmRSS') - before), wasmMb: step.wasmMb, v8HeapMb: step.heapMb, newSpaceMb: step.newSpaceMb });
  });
  await new Promise((resolve) => worker.once('exit', resolve));
  console.log(JSON.stringify({ young: values.young ?? 'default', batch: Number(values.batch), processRssBeforeMb: Math.round(before), peakProcessRssMb: Math.round(statusMb('VmHWM')), rows }, null, 1));
} else {
  const v8 = await import('node:v8');
  const tf = (await import('@energetic-ai/core')) as unknown as { engine?: () => { backend: { wasm: { HEAPU8: Uint8Array } } }; default?: { engine: () => { backend: { wasm: { HEAPU8: Uint8Array } } } } };
  const engine = tf.engine ?? tf.default!.engine;
  const { createUseLiteEmbedder } = await import('../../server/embedders/use-lite.ts');
  const { batch, sizes } = workerData as { batch: number; sizes: number[] };
  const mb = (bytes: number) => Math.round(bytes / 2 ** 18) / 4;
  const report = (label: string) => {
    const spaces = v8.getHeapSpaceStatistics();
    const physical = spaces.reduce((sum, s) => sum + s.physical_space_size, 0);
    const newSpace = spaces.find((s) => s.space_name === 'new_space')!.physical_space_size;
    let wasm = 0;
    try {
      wasm = engine().backend.wasm.HEAPU8.buffer.byteLength;
    } catch {
      // the backend is not started before the model loads
    }
    parentPort!.postMessage({ label, wasmMb: mb(wasm), heapMb: mb(physical), newSpaceMb: mb(newSpace) });
  };
  report('thread started');
  const embedder = await createUseLiteEmbedder({ batchSize: batch });
  report('model loaded');
  await embedder.embed(['how do I reset my password']);
  report('one short query');
  const words = fs.readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8').split(/\s+/).filter(Boolean);
  const passage = (i: number) => words.slice(i * 90, i * 90 + 90).join(' ');
  for (const size of sizes) {
    await embedder.embed(Array.from({ length: size }, (_, i) => passage(i)));
    report(`${size} passages`);
  }
}
