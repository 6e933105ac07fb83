import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BRIDGE_CHANNELS, BRIDGE_KEY, buildBridge, MAX_COPY_CHARS, validCopyText, type BridgeChannel } from '../../../electron/bridge.ts';

function recordingInvoke(answers: Partial<Record<BridgeChannel, unknown>> = {}) {
  const calls: [string, unknown[]][] = [];
  const invoke = async (channel: BridgeChannel, ...args: unknown[]) => {
    calls.push([channel, args]);
    return answers[channel];
  };
  return { calls, invoke };
}

describe('preload bridge', () => {
  it('exposes exactly the documented members under window.localiq, and nothing of Electron', () => {
    const bridge = buildBridge(recordingInvoke().invoke, 'linux');
    assert.equal(BRIDGE_KEY, 'localiq');
    assert.deepEqual(Object.keys(bridge).sort(), ['apiBaseUrl', 'copyText', 'handoffsWaiting', 'isDesktop', 'openDataFolder', 'openLogsFolder', 'platform']);
    assert.equal(bridge.isDesktop, true);
    assert.equal(bridge.platform, 'linux');
    for (const name of ['apiBaseUrl', 'copyText', 'openDataFolder', 'openLogsFolder', 'handoffsWaiting'] as const) {
      assert.equal(typeof bridge[name], 'function', name);
    }
    for (const leaked of ['invoke', 'ipcRenderer', 'send', 'on', 'require', 'process']) {
      assert.equal(leaked in bridge, false, leaked);
    }
    assert.equal(Object.isFrozen(bridge), true, 'the page cannot swap a member for its own function');
  });

  it('contains only plain values and functions, which contextBridge can copy', () => {
    const bridge = buildBridge(recordingInvoke().invoke, 'darwin');
    for (const [name, value] of Object.entries(bridge)) {
      assert.ok(['function', 'string', 'boolean'].includes(typeof value), `${name} is ${typeof value}`);
    }
  });

  it('sends each call on its own channel with only the expected arguments', async () => {
    const { calls, invoke } = recordingInvoke({ [BRIDGE_CHANNELS.apiBaseUrl]: 'http://127.0.0.1:7410' });
    const bridge = buildBridge(invoke, 'win32');
    assert.equal(await bridge.apiBaseUrl(), 'http://127.0.0.1:7410');
    await bridge.copyText('liq_abc');
    await bridge.openDataFolder();
    await bridge.openLogsFolder();
    await bridge.handoffsWaiting(3);
    await assert.rejects(bridge.handoffsWaiting(-1), TypeError);
    await assert.rejects(bridge.handoffsWaiting('3' as unknown as number), TypeError);
    assert.deepEqual(calls, [
      ['localiq:api-base-url', []],
      ['localiq:copy-text', ['liq_abc']],
      ['localiq:open-data-folder', []],
      ['localiq:open-logs-folder', []],
      ['localiq:handoffs-waiting', [3]],
    ]);
  });

  it('refuses bad copyText arguments before they reach the main process', async () => {
    const { calls, invoke } = recordingInvoke();
    const bridge = buildBridge(invoke, 'linux');
    await assert.rejects(bridge.copyText(42 as unknown as string), TypeError);
    await assert.rejects(bridge.copyText('x'.repeat(MAX_COPY_CHARS + 1)), TypeError);
    assert.deepEqual(calls, []);
  });

  it('rejects a main-process answer that is not a URL string', async () => {
    const bridge = buildBridge(recordingInvoke({ [BRIDGE_CHANNELS.apiBaseUrl]: { url: 'x' } }).invoke, 'linux');
    await assert.rejects(bridge.apiBaseUrl(), /no API base URL/);
  });

  it('main re-checks what the renderer sent', () => {
    assert.equal(validCopyText('liq_abc'), 'liq_abc');
    assert.equal(validCopyText(''), '');
    for (const bad of [undefined, null, 1, ['a'], { toString: () => 'a' }, 'x'.repeat(MAX_COPY_CHARS + 1)]) {
      assert.equal(validCopyText(bad), null);
    }
  });

  it('uses distinct channels, all under the localiq: prefix', () => {
    const channels = Object.values(BRIDGE_CHANNELS);
    assert.equal(new Set(channels).size, channels.length);
    for (const channel of channels) assert.match(channel, /^localiq:[a-z-]+$/);
  });
});
