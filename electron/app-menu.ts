import type { MenuItemConstructorOptions } from 'electron';

/** The app menu: LocalIQ's own commands first, then the standard Edit/View/Window menus. */

export type MenuActions = {
  openDashboard(): void;
  copyApiBaseUrl(): void;
  openDataFolder(): void;
  openLogsFolder(): void;
  restartServer(): void;
  quit(): void;
};

export function appMenuTemplate(actions: MenuActions, platform: string): MenuItemConstructorOptions[] {
  const localiq: MenuItemConstructorOptions = {
    label: 'LocalIQ',
    submenu: [
      { label: 'Open Dashboard', accelerator: 'CmdOrCtrl+D', click: () => actions.openDashboard() },
      { label: 'Copy API Base URL', click: () => actions.copyApiBaseUrl() },
      { type: 'separator' },
      { label: 'Open Data Folder', click: () => actions.openDataFolder() },
      { label: 'Open Logs Folder', click: () => actions.openLogsFolder() },
      { label: 'Restart Server', click: () => actions.restartServer() },
      { type: 'separator' },
      ...(platform === 'darwin' ? ([{ role: 'hide' }, { role: 'hideOthers' }, { type: 'separator' }] as const) : []),
      { label: 'Quit LocalIQ', accelerator: 'CmdOrCtrl+Q', click: () => actions.quit() },
    ],
  };
  return [
    localiq,
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [{ role: 'reload' }, { type: 'separator' }, { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' }, { role: 'togglefullscreen' }],
    },
    { role: 'windowMenu' },
  ];
}
