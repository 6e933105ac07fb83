import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium, headless; the flags keep it from phoning home or needing a GPU. */
export const CHROMIUM_PATH = process.env.LOCALIQ_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, headless: true });
}
