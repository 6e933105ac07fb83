import { useEffect, useRef, useState } from 'react';
import type { PublicWidgetConfig } from '../../../../common/contract/widget.ts';

/** What widget.js defines on the page (widget/README.md): the dashboard uses only `preview`. */
type WidgetNamespace = { version: string; preview(host: HTMLElement, config: PublicWidgetConfig): void };
type WithWidget = Window & { LocalIQWidget?: WidgetNamespace };

let loading: Promise<WidgetNamespace> | null = null;

/**
 * The widget script the shops load, loaded once into the dashboard (from this server, so the
 * page's content security policy lets it in): the preview is the real widget, not a copy of it.
 */
function loadWidgetScript(): Promise<WidgetNamespace> {
  const loaded = (window as WithWidget).LocalIQWidget;
  if (loaded) return Promise.resolve(loaded);
  loading ??= new Promise<WidgetNamespace>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = '/widget.js';
    script.async = true;
    script.onload = () => {
      const namespace = (window as WithWidget).LocalIQWidget;
      if (namespace) resolve(namespace);
      else reject(new Error('/widget.js loaded but defined no LocalIQWidget.'));
    };
    script.onerror = () => {
      script.remove();
      // A later visit of the screen tries again (the script may have been built meanwhile).
      loading = null;
      reject(new Error('The widget script (/widget.js) could not be loaded: build it with `npm run build`, then reload.'));
    };
    document.head.append(script);
  });
  return loading;
}

/** The widget as a visitor would see it with these settings, redrawn on every change. */
export function WidgetPreview({ config }: { config: PublicWidgetConfig }) {
  const host = useRef<HTMLDivElement>(null);
  const [widget, setWidget] = useState<WidgetNamespace | null>(() => (window as WithWidget).LocalIQWidget ?? null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (widget) return;
    let current = true;
    loadWidgetScript().then(
      (namespace) => current && setWidget(namespace),
      (e: unknown) => current && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      current = false;
    };
  }, [widget]);
  const serialized = JSON.stringify(config);
  useEffect(() => {
    if (widget && host.current) widget.preview(host.current, JSON.parse(serialized) as PublicWidgetConfig);
  }, [widget, serialized]);
  return (
    <section className="widget-preview" aria-labelledby="widget-preview-heading">
      <h2 id="widget-preview-heading">Preview</h2>
      <p className="hint">As a visitor sees it, open. Sending is off here.</p>
      {error ? <p className="error">{error}</p> : null}
      {!widget && !error ? <p className="hint" role="status">Loading the widget…</p> : null}
      <div className="widget-preview-host" ref={host} data-testid="widget-preview" />
    </section>
  );
}
