import { FAILURE_PAGE_CSP } from './security-rules.ts';

/**
 * The page the window shows while the server starts or restarts, and when it cannot start: a
 * self-contained data: URL with no script, whose text (the failure reason, paths) is escaped.
 */

export type StatusPage =
  | { kind: 'starting' }
  | { kind: 'restarting'; reason: string; delayMs: number }
  | { kind: 'failed'; reason: string; logsDir: string; dataDir: string };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function body(page: StatusPage): string {
  switch (page.kind) {
    case 'starting':
      return '<h1>Starting LocalIQ…</h1><p>Opening the database and loading the embedding model.</p>';
    case 'restarting':
      return (
        `<h1>Restarting the LocalIQ server…</h1><p class="reason">${escapeHtml(page.reason)}</p>` +
        `<p>Trying again in ${Math.ceil(page.delayMs / 1000)} s. Pushed content is safe: every acknowledged job is on disk.</p>`
      );
    case 'failed':
      return (
        '<h1>LocalIQ could not start</h1>' +
        `<p class="reason">${escapeHtml(page.reason)}</p>` +
        '<p>Choose <b>LocalIQ → Restart server</b> in the menu to try again.</p>' +
        `<p>Logs: <code>${escapeHtml(page.logsDir)}</code><br>Data: <code>${escapeHtml(page.dataDir)}</code></p>`
      );
  }
}

export function statusPageHtml(page: StatusPage): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(FAILURE_PAGE_CSP)}">
<title>LocalIQ</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:0;padding:48px;color:#1f2328;background:#f6f8fa}
h1{font-size:22px;margin:0 0 12px}.reason{padding:12px 16px;background:#fff;border:1px solid #d0d7de;border-radius:6px;white-space:pre-wrap;word-break:break-word}
code{font-size:13px;word-break:break-all}@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}.reason{background:#161b22;border-color:#30363d}}</style>
</head><body>${body(page)}</body></html>`;
}

export function statusPageUrl(page: StatusPage): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(statusPageHtml(page))}`;
}
