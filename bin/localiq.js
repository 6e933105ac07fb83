#!/usr/bin/env node
// Runs the TypeScript sources directly: the CLI and the headless server need no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../server/cli.ts');
process.exitCode = await main(process.argv.slice(2));
