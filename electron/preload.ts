// The dashboard window's preload (sandboxed, so bundled as CommonJS). It exposes the typed bridge
// and nothing else: no ipcRenderer, no Node APIs.
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_KEY, buildBridge } from './bridge.ts';

contextBridge.exposeInMainWorld(
  BRIDGE_KEY,
  buildBridge((channel, ...args) => ipcRenderer.invoke(channel, ...args), process.platform),
);
