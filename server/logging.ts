import os from 'node:os';
import { pino, type Logger } from 'pino';
import type { Config } from './config.ts';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
// Fields every record has, or that the readable line shows in its own place.
const OWN_PLACE = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err', 'reqId']);

function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/** `02:03:04 WARN  message  key=value …`, then an error's stack indented below it. */
function prettyLine(record: Record<string, unknown>): string {
  const time = new Date(typeof record.time === 'number' ? record.time : Date.now()).toTimeString().slice(0, 8);
  const level = (LEVEL_NAMES[record.level as number] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([key]) => !OWN_PLACE.has(key))
    .map(([key, value]) => `${key}=${fieldValue(value)}`);
  const err = record.err as { message?: string; stack?: string } | undefined;
  const message = [record.msg ?? err?.message ?? '', ...(record.reqId ? [`(${String(record.reqId)})`] : [])].join(' ');
  let line = `${time} ${level} ${message}${fields.length ? `  ${fields.join(' ')}` : ''}\n`;
  if (err?.stack) line += `${err.stack.replace(/^/gm, '    ')}\n`;
  return line;
}

type Output = { write(text: string): unknown };

/** A pino destination that turns each JSON record into a readable line. */
function prettyStream(out: Output): Output {
  return { write: (record: string) => out.write(prettyLine(JSON.parse(record) as Record<string, unknown>)) };
}

export type Logs = {
  logger: Logger;
  /** A line a person running the server must see (where it listens, that it stopped), whatever the level. */
  announce(message: string): void;
};

export function createLogs(config: Pick<Config, 'logLevel' | 'logFormat'>, out: Output = process.stdout): Logs {
  const destination = config.logFormat === 'pretty' ? prettyStream(out) : out;
  const logger = pino(
    {
      level: config.logLevel,
      redact: ['req.headers["x-api-key"]', 'req.headers.cookie', 'req.headers.authorization'],
    },
    destination as pino.DestinationStream,
  );
  const hostname = os.hostname();
  return {
    logger,
    announce(message) {
      const record = JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, hostname, msg: message });
      destination.write(`${record}\n`);
    },
  };
}
