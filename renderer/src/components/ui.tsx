import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import { ErrorAnswer } from '../../../common/contract/errors.ts';

/** Loads data and reloads on demand; keeps the last good data while reloading. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal)
      .then((value) => {
        setData(value);
        setError(null);
      })
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, reload, setData };
}

export function errorText(error: unknown): string {
  if (error instanceof ErrorAnswer) {
    const details = error.details.map((d) => `${d.path ? `${d.path}: ` : ''}${d.message}`).join('; ');
    return details ? `${error.message} (${details})` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export function ErrorNote({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <section className="empty" aria-label={title}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Some browsers refuse the clipboard API on plain http: fall back to a selection copy.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <button type="button" className="secondary" onClick={() => void copy()}>
      {copied ? 'Copied' : label}
    </button>
  );
}

export function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <div className="code-block">
      <pre aria-label={label} tabIndex={0}>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} label={`Copy ${label}`} />
    </div>
  );
}

const STATE_CLASS: Record<string, string> = {
  active: 'ok',
  succeeded: 'ok',
  skipped: 'muted',
  queued: 'info',
  processing: 'info',
  expired: 'warn',
  cancelled: 'muted',
  revoked: 'bad',
  failed: 'bad',
  // Who asked, on the Conversations screen.
  dashboard: 'info',
  visitor: 'muted',
};

export function Badge({ value, label }: { value: string; label?: string }) {
  return <span className={`badge ${STATE_CLASS[value] ?? 'muted'}`}>{label ?? value}</span>;
}

/** A modal built on <dialog>: focus is trapped and Escape closes it, as browsers do natively. */
export function Modal({
  title,
  open,
  onClose,
  children,
  dismissable = true,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
  dismissable?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        if (dismissable) onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {open ? children : null}
    </dialog>
  );
}

export function Confirm({
  title,
  open,
  message,
  confirmLabel,
  onConfirm,
  onCancel,
  danger = true,
}: {
  title: string;
  open: boolean;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  onCancel: () => void;
  danger?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <Modal title={title} open={open} onClose={onCancel}>
      <div className="dialog-body">{message}</div>
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button
          type="button"
          className={danger ? 'danger' : 'primary'}
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            setError(null);
            try {
              await onConfirm();
            } catch (e) {
              setError(errorText(e));
            } finally {
              setBusy(false);
            }
          }}
        >
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children ? <div className="page-actions">{children}</div> : null}
    </header>
  );
}

/**
 * A scrollable table with a caption for screen readers and one header row; children are the body
 * rows. A column given as `false` is left out (e.g. an Actions column only managers see).
 */
export function DataTable({ caption, columns, children }: { caption: string; columns: (string | false)[]; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) =>
              c === false ? null : (
                <th key={c} scope="col">
                  {c}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
