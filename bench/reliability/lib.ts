import fs from 'node:fs';
import { loadConfig } from '../../server/config.ts';
import { SCOPES } from '../../common/contract/scopes.ts';
import { openServices } from '../../server/services.ts';
import { benchEnv } from '../lib/server-child.ts';

/** A key with every scope, created in the data folder before the server starts. */
export async function allScopesKey(dataDir: string): Promise<string> {
  const services = await openServices(loadConfig(benchEnv(dataDir)));
  try {
    return services.keys.create({ name: 'reliability', scopes: [...SCOPES] }).value;
  } finally {
    services.close();
  }
}

/** Resident memory of a process right now, in MB (Linux). */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** Least-squares slope and intercept of y over x. */
export function linearFit(xs: number[], ys: number[]): { slope: number; intercept: number } {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  const slope = den === 0 ? 0 : num / den;
  return { slope, intercept: my - slope * mx };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
