/**
 * Where the ingest acknowledgement's time goes: single-item pushes to variants of the write path,
 * each against the bare route in the same round. The variants need the diagnostic switches of
 * write-path.patch, applied in a scratch checkout (never on main):
 *
 *   git worktree add /tmp/write-path HEAD && cd /tmp/write-path && ln -s "$OLDPWD/node_modules" .
 *   git apply bench/diagnostics/write-path.patch
 *   node --import tsx bench/diagnostics/write-path.ts [--rounds 3] [--seconds 5] [--connections 16,64,256]
 *
 * `--only shipped,inbox` runs the variants whose names contain one of those words.
 * Each run starts a fresh server (pipeline off), warms it for 3 s, then measures.
 */
import { parseArgs } from 'node:util';
import { pushLoad } from '../lib/push-load.ts';
import { percentile, startBareServer, startServerChild, stopServerChild, tempDir } from '../lib/server-child.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16,64,256' },
    only: { type: 'string' },
  },
});

/** The server's environment for each variant (the switches write-path.patch adds). */
const ALL_VARIANTS: Record<string, Record<string, string> | 'bare'> = {
  'bare route': 'bare',
  'answer at once, nothing written': { DIAG_IMMEDIATE: '1' },
  'writer thread round trip, nothing written': { DIAG_THREAD_ONLY: '1' },
  'writer thread, synchronous=NORMAL': { DIAG_NORMAL: '1' },
  'writer thread, synchronous=FULL (as shipped)': {},
  'writer thread, FULL, each push appended to a bare inbox table instead': { DIAG_INBOX: '1' },
  'written on the event loop, FULL': { DIAG_MAIN: 'full' },
  'written on the event loop, NORMAL': { DIAG_MAIN: 'normal' },
};

/** `--only` picks variants by a word of their names; the bare route always runs. */
const VARIANTS = Object.fromEntries(
  Object.entries(ALL_VARIANTS).filter(([name]) => name === 'bare route' || !values.only || values.only.split(',').some((word) => name.includes(word))),
);

async function measure(env: Record<string, string> | 'bare', connections: number): Promise<number> {
  const server = env === 'bare' ? await startBareServer() : await startServerChild(tempDir(), { LOCALIQ_WORKERS: '0', ...env });
  try {
    await pushLoad(server.url, server.key, 'warm', connections, 3);
    return (await pushLoad(server.url, server.key, 'run', connections, Number(values.seconds))).requests.average;
  } finally {
    await stopServerChild(server);
  }
}

const ratios = new Map<string, number[]>();
for (let round = 0; round < Number(values.rounds); round++) {
  for (const connections of values.connections.split(',').map(Number)) {
    let bare = 0;
    for (const [name, env] of Object.entries(VARIANTS)) {
      const rps = await measure(env, connections);
      if (env === 'bare') bare = rps;
      const key = `${connections}\t${name}`;
      ratios.set(key, [...(ratios.get(key) ?? []), rps / bare]);
      console.error(`round ${round + 1}, ${connections} connections, ${name}: ${Math.round(rps)} per s`);
    }
  }
}
console.log('connections\tvariant\tratio to the bare route: median (range)');
for (const [key, values] of ratios) {
  const fixed = (n: number) => n.toFixed(2);
  console.log(`${key}\t${fixed(percentile(values, 50))} (${fixed(Math.min(...values))}–${fixed(Math.max(...values))})`);
}
