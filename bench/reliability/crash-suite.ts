/**
 * Crash suite, long run: a few thousand items pushed in bulk to a real `localiq serve`, SIGKILLed
 * at random moments (while bulks are being acknowledged, or while the pipeline processes), with
 * the files checked after every kill, then drained and verified against what was acknowledged
 * (see test/integration/reliability/helpers/crash.ts). Among the items, a poison one that kills
 * the worker running it every time (`--no-poison` leaves it out): it must end failed, alone, and
 * no acknowledged job may fail or go missing. Prints a JSON report; exits 1 on a problem.
 * Usage: npm run reliability:crash [-- --items 2000 --kills 10 --seed 7 --workers 1 --no-poison]
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { runCrashCampaign } from '../../test/integration/reliability/helpers/crash.ts';
import { percentile } from '../lib/server-child.ts';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '2000' },
    kills: { type: 'string', default: '10' },
    'no-poison': { type: 'boolean', default: false },
    seed: { type: 'string' },
    workers: { type: 'string', default: '1' },
    'max-delay': { type: 'string', default: '4000' },
  },
});
const started = Date.now();
const report = await runCrashCampaign({
  items: Number(values.items),
  kills: Number(values.kills),
  seed: values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed),
  bulkSize: [50, 300],
  workers: Number(values.workers),
  maxKillDelayMs: Number(values['max-delay']),
  drainTimeoutMs: 30 * 60_000,
  poison: !values['no-poison'],
  log: (line) => process.stderr.write(`${line}\n`),
});
const kills = report.kills;
console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      machine: `${os.cpus().length} cores, node ${process.version} (shared)`,
      minutes: Number(((Date.now() - started) / 60_000).toFixed(1)),
      seed: report.seed,
      items: report.items,
      kills: kills.length,
      killsDuringAck: kills.filter((k) => k.mode === 'ack').length,
      killsDuringProcessing: kills.filter((k) => k.mode === 'processing').length,
      killsWithRequestsInFlight: kills.filter((k) => k.inFlightRequests > 0).length,
      killsWithJobsProcessing: kills.filter((k) => k.processingJobsAtKill > 0).length,
      jobsInterruptedMidProcessing: kills.reduce((a, k) => a + k.processingJobsAtKill, 0),
      bulkPushesAcknowledged: report.pushesAcknowledged,
      bulkPushesCutOff: report.pushesLost,
      itemVersionsAcknowledged: report.versionsAcknowledged,
      restartMs: { p50: percentile(report.restartMs, 50), max: Math.max(...report.restartMs) },
      finalDrainMs: report.drainMs,
      integrityAfterEveryKill: kills.every((k) => k.integrity === 'ok') ? 'ok' : kills.map((k) => k.integrity),
      halfIndexedAfterAnyKill: kills.reduce((a, k) => a + k.halfIndexed, 0),
      acknowledgedJobsFailed: (report.final.jobsByStatus.failed ?? 0) - (report.poison?.status === 'failed' ? 1 : 0),
      acknowledgedItemsMissing: report.final.missing,
      poison: report.poison ?? null,
      final: report.final,
      problems: report.problems,
    },
    null,
    2,
  ),
);
process.exit(report.problems.length ? 1 : 0);
