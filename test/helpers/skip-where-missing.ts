import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';

/**
 * Tests that need something a machine may lack (the right to mount a small file system, a
 * pseudo-terminal, a non-loopback address) skip where it is missing and say what, so a user's
 * clone still passes `npm test`. CI sets LOCALIQ_TEST_NOTHING_MISSING=1 (.ci/run): there a missing
 * thing fails the test instead, so every one of these tests is shown to run. (The OS keychain has
 * its own switch, LOCALIQ_TEST_KEYCHAIN, set by scripts/run-tests.js when it starts a keyring.)
 */
export function skipWhereMissing(t: TestContext, missing: string): void {
  assert.notEqual(process.env.LOCALIQ_TEST_NOTHING_MISSING, '1', `this run must not skip, but ${missing}`);
  t.skip(missing);
}

/** The same for a whole suite: the value of node:test's `skip` option (false where nothing is missing). */
export function suiteSkipWhereMissing(available: boolean, missing: string): string | false {
  if (available) return false;
  if (process.env.LOCALIQ_TEST_NOTHING_MISSING === '1') throw new Error(`this run must not skip, but ${missing}`);
  return missing;
}
