/**
 * The visitor widget's weight on a shop's page: raw and gzip (level 9) bytes of the built
 * out/widget/widget.js, against the 25 KB gzip budget. Build it first: `npm run build:widget`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const BUNDLE = path.resolve(import.meta.dirname, '../out/widget/widget.js');
const BUDGET_GZIP_BYTES = 25 * 1024;

if (!fs.existsSync(BUNDLE)) {
  console.error(`${BUNDLE} is missing: run \`npm run build:widget\` first.`);
  process.exit(1);
}
const source = fs.readFileSync(BUNDLE);
const gzipBytes = gzipSync(source, { level: 9 }).length;
console.log(
  JSON.stringify(
    { file: path.relative(process.cwd(), BUNDLE), rawBytes: source.length, gzipBytes, budgetGzipBytes: BUDGET_GZIP_BYTES, withinBudget: gzipBytes <= BUDGET_GZIP_BYTES },
    null,
    2,
  ),
);
