/**
 * The LocalIQ desktop shell. It runs the same server as `localiq serve` in an Electron utility
 * process and shows the dashboard that server serves, in one hardened window. Every decision
 * (which URL may load, which permission is granted, when the server is restarted, where the
 * window goes) lives in a pure module next to this file; this one only wires Electron to them.
 */
import path from 'node:path';
import {
  app,
  BrowserWindow,
  clipboard,
  ipcMain,
  Menu,
  Notification,
  screen,
  session,
  shell,
  utilityProcess,
  type IpcMainInvokeEvent,
  type WebContents,
} from 'electron';
import { appMenuTemplate } from './app-menu.ts';
import { BRIDGE_CHANNELS, validCopyText } from './bridge.ts';
import { HandoffNotifier } from './handoff-notice.ts';
import { localServerUrl, mintSignInToken, serverEnvironment, signInUrl } from './desktop-session.ts';
import { logLine, openLogFile } from './log-file.ts';
import {
  decideNavigation,
  decidePermission,
  decideWindowOpen,
  externalHref,
  isTrustedOrigin,
  originOf,
  withContentSecurityPolicy,
} from './security-rules.ts';
import { ServerSupervisor, type ServerHandle, type SupervisorState } from './server-supervisor.ts';
import { statusPageUrl, type StatusPage } from './status-page.ts';
import { MIN_SIZE, readWindowState, restoreBounds, writeWindowState } from './window-state.ts';

// The server is built beside the shell (electron.vite.config.ts): out/server/server-entry.js.
const SERVER_ENTRY = path.join(import.meta.dirname, '../server/server-entry.js');
// Sandboxed preloads cannot be ES modules: the preload is bundled as CommonJS.
const PRELOAD = path.join(import.meta.dirname, '../preload/index.cjs');

// The same folders in development and in the installed app ("localiq" is only the npm name).
app.setName('LocalIQ');
// Every renderer is sandboxed, including any the page might manage to open.
app.enableSandbox();

if (!app.requestSingleInstanceLock()) {
  // Another LocalIQ is running: it shows its window (second-instance below) and this one leaves.
  app.quit();
} else {
  runShell();
}

function runShell(): void {
  app.setAppLogsPath();
  const dataDir = app.getPath('userData');
  const logsDir = app.getPath('logs');
  const mainLog = openLogFile(logsDir, 'main.log');
  const serverLog = openLogFile(logsDir, 'server.log');
  const log = (message: string) => logLine(mainLog, message);

  let window: BrowserWindow | null = null;
  let trustedOrigin = 'http://127.0.0.1:7410';
  let serverUrl: string | null = null;
  /** The current server start's sign-in token, until the window has used it. */
  let pendingToken: string | null = null;
  let supervisor = createSupervisor();
  let quitting = false;
  let readyToQuit = false;

  function createSupervisor(): ServerSupervisor {
    return new ServerSupervisor({ spawn: spawnServer, onState: onServerState });
  }

  function spawnServer(): ServerHandle {
    const token = mintSignInToken();
    pendingToken = token;
    const child = utilityProcess.fork(SERVER_ENTRY, [], {
      serviceName: 'LocalIQ server',
      stdio: 'pipe',
      env: serverEnvironment(process.env, { dataDir, token }),
    });
    child.stdout?.pipe(serverLog, { end: false });
    child.stderr?.pipe(serverLog, { end: false });
    return {
      postMessage: (message) => child.postMessage(message),
      on: (event: 'message' | 'exit', listener: (value: never) => void) => {
        if (event === 'message') child.on('message', listener as (message: unknown) => void);
        else child.on('exit', listener as (code: number) => void);
      },
      kill: () => child.kill(),
    };
  }

  function onServerState(state: SupervisorState): void {
    log(`server ${state.status}${'reason' in state ? `: ${state.reason}` : ''}${state.status === 'running' ? ` at ${state.url}` : ''}`);
    switch (state.status) {
      case 'starting':
        if (!serverUrl) showStatus({ kind: 'starting' });
        break;
      case 'running':
        serverUrl = localServerUrl(state.url);
        trustedOrigin = originOf(serverUrl);
        openDashboard();
        break;
      case 'restarting':
        serverUrl = null;
        showStatus({ kind: 'restarting', reason: state.reason, delayMs: state.delayMs });
        break;
      case 'failed':
        serverUrl = null;
        showStatus({ kind: 'failed', reason: state.reason, logsDir, dataDir });
        break;
      default:
        break;
    }
  }

  function showStatus(page: StatusPage): void {
    const win = ensureWindow();
    void win.loadURL(statusPageUrl(page)).catch((error: Error) => log(`status page: ${error.message}`));
  }

  /** Shows the dashboard, signing in with the one-time token if this server start has not yet. */
  function openDashboard(): void {
    const win = ensureWindow();
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
    if (!serverUrl) return;
    const alreadyThere = isTrustedOrigin(win.webContents.getURL(), trustedOrigin);
    if (pendingToken) {
      const target = signInUrl(serverUrl, pendingToken);
      pendingToken = null;
      void win.loadURL(target).catch((error: Error) => log(`dashboard: ${error.message}`));
    } else if (!alreadyThere) {
      void win.loadURL(`${serverUrl}/`).catch((error: Error) => log(`dashboard: ${error.message}`));
    }
  }

  function ensureWindow(): BrowserWindow {
    if (window && !window.isDestroyed()) return window;
    // Primary display first: a window that fits nowhere else is centred there.
    const primaryId = screen.getPrimaryDisplay().id;
    const displays = screen.getAllDisplays();
    const workAreas = [...displays.filter((d) => d.id === primaryId), ...displays.filter((d) => d.id !== primaryId)].map((d) => d.workArea);
    const restored = restoreBounds(readWindowState(dataDir), workAreas);
    const win = new BrowserWindow({
      ...restored.bounds,
      minWidth: MIN_SIZE.width,
      minHeight: MIN_SIZE.height,
      title: 'LocalIQ',
      show: false,
      webPreferences: {
        preload: PRELOAD,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webviewTag: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        navigateOnDragDrop: false,
        safeDialogs: true,
        spellcheck: false,
        devTools: !app.isPackaged,
      },
    });
    if (restored.maximized) win.maximize();
    win.once('ready-to-show', () => win.show());
    win.on('close', () => {
      writeWindowState(dataDir, { bounds: win.getNormalBounds(), maximized: win.isMaximized() });
    });
    win.on('closed', () => {
      if (window === win) window = null;
    });
    win.webContents.on('render-process-gone', (_event, details) => {
      log(`window renderer gone: ${details.reason}`);
      if (!win.isDestroyed() && details.reason !== 'clean-exit') win.webContents.reload();
    });
    window = win;
    return win;
  }

  /** Navigation, new windows and embedded views for every web contents the app ever creates. */
  function harden(contents: WebContents): void {
    // A clicked link to a public site goes to the browser; redirects and frames only stay or stop.
    const guard = (event: { preventDefault(): void }, url: string, followExternal: boolean) => {
      const decision = decideNavigation(url, trustedOrigin);
      if (decision === 'allow') return;
      event.preventDefault();
      if (decision === 'open-external' && followExternal) void shell.openExternal(externalHref(url));
      else log('blocked a navigation away from the dashboard');
    };
    contents.on('will-navigate', (event) => guard(event, event.url, true));
    contents.on('will-frame-navigate', (event) => {
      if (!event.isMainFrame) guard(event, event.url, false);
    });
    contents.on('will-redirect', (event) => guard(event, event.url, false));
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      const decision = decideWindowOpen(url, trustedOrigin);
      if (decision === 'open-external') void shell.openExternal(externalHref(url));
      if (decision !== 'allow') return { action: 'deny' };
      // A second dashboard window keeps the same locked-down preferences.
      return {
        action: 'allow',
        overrideBrowserWindowOptions: {
          webPreferences: { preload: PRELOAD, contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false },
        },
      };
    });
  }

  function hardenSession(): void {
    const ses = session.defaultSession;
    ses.setPermissionRequestHandler((_contents, permission, callback, details) => {
      callback(decidePermission(permission, details.requestingUrl, trustedOrigin) === 'allow');
    });
    ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => {
      return decidePermission(permission, requestingOrigin, trustedOrigin) === 'allow';
    });
    ses.setDevicePermissionHandler(() => false);
    ses.webRequest.onHeadersReceived((details, callback) => {
      callback({ responseHeaders: withContentSecurityPolicy(details.url, details.responseHeaders ?? {}, trustedOrigin) });
    });
  }

  /** Bridge calls are answered only for the dashboard's own origin. */
  function handle(channel: string, answer: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void {
    ipcMain.handle(channel, (event, ...args) => {
      if (!isTrustedOrigin(event.senderFrame?.url, trustedOrigin)) throw new Error('Not available on this page.');
      return answer(event, ...args);
    });
  }

  function registerBridge(): void {
    handle(BRIDGE_CHANNELS.apiBaseUrl, () => serverUrl ?? trustedOrigin);
    handle(BRIDGE_CHANNELS.copyText, (_event, text) => {
      const valid = validCopyText(text);
      if (valid === null) throw new Error('copyText takes a string of at most 64 KiB.');
      clipboard.writeText(valid);
    });
    handle(BRIDGE_CHANNELS.openDataFolder, async () => {
      await shell.openPath(dataDir);
    });
    handle(BRIDGE_CHANNELS.openLogsFolder, async () => {
      await shell.openPath(logsDir);
    });
    const handoffs = new HandoffNotifier();
    handle(BRIDGE_CHANNELS.handoffsWaiting, (_event, open) => {
      const notice = handoffs.heard(open);
      if (notice && Notification.isSupported()) new Notification(notice).show();
    });
  }

  async function restartServer(): Promise<void> {
    const old = supervisor;
    supervisor = createSupervisor();
    serverUrl = null;
    showStatus({ kind: 'starting' });
    await old.stop();
    await supervisor.start().catch(() => {});
  }

  function buildMenu(): void {
    const template = appMenuTemplate(
      {
        openDashboard,
        copyApiBaseUrl: () => clipboard.writeText(serverUrl ?? trustedOrigin),
        openDataFolder: () => void shell.openPath(dataDir),
        openLogsFolder: () => void shell.openPath(logsDir),
        restartServer: () => void restartServer(),
        quit: () => app.quit(),
      },
      process.platform,
    );
    Menu.setApplicationMenu(Menu.buildFromTemplate(template));
  }

  app.on('second-instance', () => openDashboard());
  app.on('web-contents-created', (_event, contents) => harden(contents));
  app.on('activate', () => openDashboard());
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', (event) => {
    if (readyToQuit) return;
    // Hold the quit until the server has closed HTTP, finished its batches and closed the db.
    event.preventDefault();
    if (quitting) return;
    quitting = true;
    log('quitting: stopping the server');
    void supervisor
      .stop()
      .catch((error: Error) => log(`server stop: ${error.message}`))
      .finally(() => {
        readyToQuit = true;
        log('server stopped; bye');
        app.quit();
      });
  });

  void app.whenReady().then(async () => {
    log(`LocalIQ ${app.getVersion()} starting; data in ${dataDir}`);
    hardenSession();
    registerBridge();
    buildMenu();
    showStatus({ kind: 'starting' });
    await supervisor.start().catch(() => {
      // The failure screen (onServerState) already tells the user why.
    });
  });
}
