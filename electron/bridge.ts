/**
 * The small bridge the desktop preload exposes to the dashboard as `window.localiq`. It carries no
 * Electron or Node object: only these functions, each one IPC call that main.ts answers after
 * checking the caller is the dashboard's own origin. In a plain browser `window.localiq` is
 * undefined and the dashboard falls back to web APIs (navigator.clipboard, showing the URL).
 */

export const BRIDGE_KEY = 'localiq';

export const BRIDGE_CHANNELS = {
  apiBaseUrl: 'localiq:api-base-url',
  copyText: 'localiq:copy-text',
  openDataFolder: 'localiq:open-data-folder',
  openLogsFolder: 'localiq:open-logs-folder',
  handoffsWaiting: 'localiq:handoffs-waiting',
} as const;

export type BridgeChannel = (typeof BRIDGE_CHANNELS)[keyof typeof BRIDGE_CHANNELS];

/** Longest text the dashboard may put on the clipboard through the bridge (an API key is ~60). */
export const MAX_COPY_CHARS = 64 * 1024;

export type DesktopBridge = {
  /** Always true: lets the dashboard tell the desktop app from a browser tab. */
  readonly isDesktop: true;
  readonly platform: string;
  /** Where integrations reach the local API, e.g. "http://127.0.0.1:7410". */
  apiBaseUrl(): Promise<string>;
  copyText(text: string): Promise<void>;
  openDataFolder(): Promise<void>;
  openLogsFolder(): Promise<void>;
  /** The dashboard's count of open handoffs; the shell notifies when it grows (handoff-notice.ts). */
  handoffsWaiting?(open: number): Promise<void>;
};

export type Invoke = (channel: BridgeChannel, ...args: unknown[]) => Promise<unknown>;

/**
 * Builds the object handed to contextBridge.exposeInMainWorld. `invoke` is ipcRenderer.invoke in
 * the preload; it is never itself exposed, so the page cannot reach other channels.
 */
export function buildBridge(invoke: Invoke, platform: string) {
  return Object.freeze({
    isDesktop: true,
    platform,
    async apiBaseUrl() {
      const url = await invoke(BRIDGE_CHANNELS.apiBaseUrl);
      if (typeof url !== 'string') throw new Error('The desktop app returned no API base URL.');
      return url;
    },
    async copyText(text: string) {
      if (typeof text !== 'string' || text.length > MAX_COPY_CHARS) throw new TypeError('copyText takes a string of at most 64 KiB.');
      await invoke(BRIDGE_CHANNELS.copyText, text);
    },
    async openDataFolder() {
      await invoke(BRIDGE_CHANNELS.openDataFolder);
    },
    async openLogsFolder() {
      await invoke(BRIDGE_CHANNELS.openLogsFolder);
    },
    async handoffsWaiting(open: number) {
      if (!Number.isSafeInteger(open) || open < 0) throw new TypeError('handoffsWaiting takes a count.');
      await invoke(BRIDGE_CHANNELS.handoffsWaiting, open);
    },
  } as const) satisfies DesktopBridge;
}

/** main.ts side: the text argument of copyText, or null when the renderer sent something else. */
export function validCopyText(value: unknown): string | null {
  return typeof value === 'string' && value.length <= MAX_COPY_CHARS ? value : null;
}

declare global {
  interface Window {
    /** Present only inside the LocalIQ desktop app. */
    localiq?: DesktopBridge;
  }
}
