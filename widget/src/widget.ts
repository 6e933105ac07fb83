import type { PublicWidgetConfig } from '../../common/contract/widget.ts';
import { WidgetApi, WidgetError, apiBaseOf } from './api.ts';
import { Chat } from './chat.ts';
import { PageContext } from './page-context.ts';
import { ConversationStore } from './store.ts';

/**
 * The visitor chat widget, loaded on a shop's page with one line:
 *   <script src="https://<LocalIQ>/widget.js" data-widget="wgt_…" async></script>
 * `data-mode="page"` fills the page with the chat instead (the hosted page `/w/<widget id>`).
 * `data-external-id="sku-42"` names the item the page shows (page-context.ts).
 * The globals are `window.LocalIQWidget` ({ version, preview }) and `window.LocalIQ`
 * ({ setContext({ externalId }) }: a page that changes the item it shows without reloading says so).
 */

type Namespace = { version: string; preview(host: HTMLElement, config: PublicWidgetConfig): void };
type PageApi = { setContext(context: { externalId?: string | null }): void };

declare global {
  interface Window {
    LocalIQWidget?: Namespace;
    LocalIQ?: PageApi;
  }
}

const previews = new WeakMap<HTMLElement, ShadowRoot>();

/** Renders the open panel from a config, asking nothing; called again with a changed config, redraws. */
function preview(host: HTMLElement, config: PublicWidgetConfig): void {
  let root = previews.get(host);
  if (!root) {
    root = host.attachShadow({ mode: 'open' });
    previews.set(host, root);
  }
  new Chat(root, 'preview', config, null, null);
}

/** A host element whose tag no page stylesheet targets; `all: initial` cuts inheritance from the page. */
function createHost(): HTMLElement {
  const host = document.createElement('localiq-widget');
  host.style.setProperty('all', 'initial', 'important');
  return host;
}

async function boot(script: HTMLScriptElement): Promise<void> {
  const widgetId = script.dataset.widget ?? '';
  const mode = script.dataset.mode === 'page' ? 'page' : 'float';
  // Under a proxy's path prefix (`https://shop.example/assistant/widget.js`) the API is there too.
  const apiBase = apiBaseOf(script.src, location.href);
  const store = new ConversationStore(widgetId);
  // The hosted page is LocalIQ's own: no item is about it.
  const page = mode === 'float' ? new PageContext(script.dataset.externalId) : null;
  if (page) window.LocalIQ = { setContext: (context) => page.set(context ?? {}) };
  const api = new WidgetApi(apiBase, widgetId, store);
  let config: PublicWidgetConfig;
  try {
    config = await api.config();
  } catch (error) {
    console.warn(refusal(error, widgetId, apiBase));
    return;
  }
  const host = createHost();
  const attach = () => {
    document.body.append(host);
    new Chat(host.attachShadow({ mode: 'open' }), mode, config, api, store, page);
  };
  if (document.body) attach();
  else document.addEventListener('DOMContentLoaded', attach, { once: true });
}

/** The one console line a site owner needs when the widget does not appear. */
function refusal(error: unknown, widgetId: string, apiBase: string): string {
  const code = error instanceof WidgetError ? error.code : '';
  if (code === 'origin_not_allowed') {
    return `LocalIQ widget: this site's origin ${location.origin} is not allowed for widget ${widgetId}; add it in LocalIQ's Widgets screen.`;
  }
  if (code === 'widget_not_found' || (error instanceof WidgetError && error.status === 404)) {
    return `LocalIQ widget: widget ${widgetId} does not exist or is disabled on ${apiBase}; check the data-widget attribute and LocalIQ's Widgets screen.`;
  }
  return `LocalIQ widget: the configuration of widget ${widgetId} could not be loaded from ${apiBase} (${error instanceof Error ? error.message : String(error)}); the widget is not shown.`;
}

// currentScript is null only for a script injected as a module; then the snippet's tag is found.
const script = (document.currentScript ?? document.querySelector('script[data-widget]')) as HTMLScriptElement | null;
// The snippet pasted twice (a theme and a tag manager) draws one widget, not two.
if (!window.LocalIQWidget) {
  window.LocalIQWidget = { version: __LOCALIQ_WIDGET_VERSION__, preview };
  if (script?.dataset.widget) void boot(script);
}
