import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One schema migration: its file `NNNN-what-it-does.sql`, the version it brings the database to. */
export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
}

const FILE_NAME = /^(\d{4})-([a-z0-9]+(?:-[a-z0-9]+)*)\.sql$/;

/**
 * The migration files of a folder (this one when none is given), in order. Numbers start at 1 and
 * leave no gap, so the order is the version and `PRAGMA user_version` counts the files applied.
 *
 * This module runs as written only from the TypeScript sources. The build replaces it by the files'
 * text (electron.vite.config.ts, `migrationsInlined`, which calls this function on the sources), so
 * the built server and the desktop app, whose code may sit inside an archive, read no folder.
 */
export function readMigrationFiles(dir: string = fileURLToPath(new URL('.', import.meta.url))): MigrationFile[] {
  const names = fs.readdirSync(dir).filter((name) => name.endsWith('.sql')).sort();
  return names.map((file, index) => {
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`${dir}: ${file} is not named NNNN-what-it-does.sql (four digits, lower-case words and hyphens)`);
    const version = Number(match[1]);
    if (version !== index + 1) throw new Error(`${dir}: ${file} should be number ${String(index + 1).padStart(4, '0')}: migrations are numbered from 0001 without gaps or repeats`);
    return { version, name: match[2]!, sql: fs.readFileSync(`${dir}/${file}`, 'utf8') };
  });
}
