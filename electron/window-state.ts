import fs from 'node:fs';
import path from 'node:path';

/**
 * The dashboard window's size and place, remembered between runs in window-state.json in the data
 * folder. A saved position is used only if the window would still be visible: monitors change
 * (a laptop undocked), and a window restored off-screen cannot be reached.
 */

export type Rect = { x: number; y: number; width: number; height: number };
export type WindowState = { bounds: Rect; maximized: boolean };
export type Size = { width: number; height: number };

export const DEFAULT_SIZE: Size = { width: 1280, height: 820 };
export const MIN_SIZE: Size = { width: 720, height: 480 };
/** How much of the title bar area must be on a display for the saved position to be kept. */
const MIN_VISIBLE = 64;

const FILE = 'window-state.json';

function isFiniteInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) < 1_000_000;
}

/** The saved state, or null when the file is missing, unreadable or not what was written. */
export function parseWindowState(text: string): WindowState | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { bounds, maximized } = value as { bounds?: Partial<Rect>; maximized?: unknown };
  if (typeof bounds !== 'object' || bounds === null) return null;
  const { x, y, width, height } = bounds;
  if (![x, y, width, height].every(isFiniteInt)) return null;
  return { bounds: { x: x!, y: y!, width: width!, height: height! }, maximized: maximized === true };
}

function overlap(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return { x, y, width: Math.min(a.x + a.width, b.x + b.width) - x, height: Math.min(a.y + a.height, b.y + b.height) - y };
}

function centered(size: Size, area: Rect): Rect {
  const width = Math.min(size.width, area.width);
  const height = Math.min(size.height, area.height);
  return {
    x: area.x + Math.round((area.width - width) / 2),
    y: area.y + Math.round((area.height - height) / 2),
    width,
    height,
  };
}

/**
 * Bounds to open the window with, given the saved state and the work areas of the displays now
 * attached (the first is the primary). Sizes are clamped to the display the window lands on.
 */
export function restoreBounds(saved: WindowState | null, workAreas: readonly Rect[]): WindowState {
  const primary = workAreas[0] ?? { x: 0, y: 0, ...DEFAULT_SIZE };
  if (!saved) return { bounds: centered(DEFAULT_SIZE, primary), maximized: false };
  const size = {
    width: Math.max(MIN_SIZE.width, saved.bounds.width),
    height: Math.max(MIN_SIZE.height, saved.bounds.height),
  };
  // The title bar strip must be visible on some display so the window can be grabbed and moved.
  const titleBar = { x: saved.bounds.x, y: saved.bounds.y, width: size.width, height: 32 };
  // The display showing most of the title bar is the window's home.
  let home: Rect | undefined;
  let best = 0;
  for (const area of workAreas) {
    const o = overlap(titleBar, area);
    if (o.width >= MIN_VISIBLE && o.height > 0 && o.width > best) {
      home = area;
      best = o.width;
    }
  }
  if (!home) return { bounds: centered(size, primary), maximized: saved.maximized };
  const width = Math.min(size.width, home.width);
  const height = Math.min(size.height, home.height);
  const x = Math.min(Math.max(saved.bounds.x, home.x), home.x + home.width - width);
  const y = Math.min(Math.max(saved.bounds.y, home.y), home.y + home.height - height);
  return { bounds: { x, y, width, height }, maximized: saved.maximized };
}

export function readWindowState(dir: string): WindowState | null {
  try {
    return parseWindowState(fs.readFileSync(path.join(dir, FILE), 'utf8'));
  } catch {
    return null;
  }
}

/** Written to a temporary file and renamed, so a crash mid-write never leaves half a file. */
export function writeWindowState(dir: string, state: WindowState): void {
  const file = path.join(dir, FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(tmp, `${JSON.stringify(state)}\n`);
  fs.renameSync(tmp, file);
}
