#!/usr/bin/env node
// Runs the built command line (out/server/cli.js): `npm run build` makes it, `npm start` rebuilds
// it when the sources changed. No TypeScript is compiled at run time.
import fs from 'node:fs';

const cli = new URL('../out/server/cli.js', import.meta.url);
if (!fs.existsSync(cli)) {
  process.stderr.write('localiq: the server is not built yet. Run `npm run build` in the LocalIQ folder (or `npm start`, which builds it first).\n');
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
