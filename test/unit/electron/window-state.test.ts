import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  DEFAULT_SIZE,
  MIN_SIZE,
  parseWindowState,
  readWindowState,
  restoreBounds,
  writeWindowState,
  type Rect,
} from '../../../electron/window-state.ts';

const LAPTOP: Rect = { x: 0, y: 25, width: 1440, height: 875 };
const MONITOR_RIGHT: Rect = { x: 1440, y: 0, width: 2560, height: 1415 };

describe('window state', () => {
  it('opens centred at the default size the first time', () => {
    assert.deepEqual(restoreBounds(null, [LAPTOP]), {
      bounds: { x: 80, y: 53, width: DEFAULT_SIZE.width, height: DEFAULT_SIZE.height },
      maximized: false,
    });
  });

  it('keeps a saved position that is still on a display', () => {
    const saved = { bounds: { x: 1600, y: 100, width: 1200, height: 900 }, maximized: true };
    assert.deepEqual(restoreBounds(saved, [LAPTOP, MONITOR_RIGHT]), saved);
  });

  it('recentres a window whose monitor is gone (laptop undocked)', () => {
    const saved = { bounds: { x: 1600, y: 100, width: 1200, height: 900 }, maximized: false };
    assert.deepEqual(restoreBounds(saved, [LAPTOP]), {
      bounds: { x: 120, y: 25, width: 1200, height: 875 },
      maximized: false,
    });
  });

  it('pulls a window hanging off the edge back onto its display and shrinks it to fit', () => {
    // Mostly on the right monitor (its title bar too), partly off its bottom edge and too big.
    const saved = { bounds: { x: 1300, y: 100, width: 3000, height: 2000 }, maximized: false };
    const restored = restoreBounds(saved, [LAPTOP, MONITOR_RIGHT]);
    assert.deepEqual(restored.bounds, { x: 1440, y: 0, width: 2560, height: 1415 });
  });

  it('recentres a window whose title bar is above every display', () => {
    const saved = { bounds: { x: 100, y: -500, width: 1000, height: 700 }, maximized: false };
    assert.deepEqual(restoreBounds(saved, [LAPTOP, MONITOR_RIGHT]).bounds, { x: 220, y: 113, width: 1000, height: 700 });
  });

  it('refuses a title bar barely peeking onto a display', () => {
    const saved = { bounds: { x: 1440 - 30, y: 100, width: 1000, height: 700 }, maximized: false };
    const restored = restoreBounds(saved, [LAPTOP]);
    assert.deepEqual(restored.bounds, { x: 220, y: 113, width: 1000, height: 700 });
  });

  it('never restores below the minimum size', () => {
    const restored = restoreBounds({ bounds: { x: 10, y: 40, width: 5, height: 5 }, maximized: false }, [LAPTOP]);
    assert.equal(restored.bounds.width, MIN_SIZE.width);
    assert.equal(restored.bounds.height, MIN_SIZE.height);
  });

  it('ignores a damaged or foreign state file', () => {
    for (const text of ['', '{', 'null', '[]', '{"bounds":{"x":"1","y":0,"width":10,"height":10}}', '{"bounds":{"x":1e308,"y":0,"width":10,"height":10}}', '{"bounds":{"x":0,"y":0,"width":10}}']) {
      assert.equal(parseWindowState(text), null, text);
    }
    assert.deepEqual(parseWindowState('{"bounds":{"x":1,"y":2,"width":800,"height":600},"maximized":"yes"}'), {
      bounds: { x: 1, y: 2, width: 800, height: 600 },
      maximized: false,
    });
  });

  it('round-trips through the file and replaces it whole', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-window-'));
    try {
      assert.equal(readWindowState(dir), null);
      const state = { bounds: { x: 5, y: 6, width: 900, height: 700 }, maximized: true };
      writeWindowState(dir, state);
      assert.deepEqual(readWindowState(dir), state);
      writeWindowState(dir, { ...state, maximized: false });
      assert.deepEqual(readWindowState(dir), { ...state, maximized: false });
      assert.deepEqual(fs.readdirSync(dir), ['window-state.json'], 'no temporary file left behind');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
