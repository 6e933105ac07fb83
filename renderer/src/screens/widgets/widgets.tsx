import { useEffect, useState } from 'react';
import type { AdminWidget } from '../../../../common/contract/admin.ts';
import { listKnowledgeBases } from '../../api/knowledge-bases.ts';
import { getSettings } from '../../api/settings.ts';
import { createWidget, deleteWidget, getWidget, listWidgets, updateWidget } from '../../api/widgets.ts';
import { Badge, CodeBlock, Confirm, DataTable, EmptyState, ErrorNote, PageHeader, useLoad } from '../../components/ui.tsx';
import { href, navigate } from '../../router.ts';
import { useSession } from '../../session.tsx';
import { WidgetEditor } from './widgets-form.tsx';

/** A widget just created: its page opens once with "Widget created, paste this line". */
const justCreated = new Set<string>();

function useKnowledgeBases(): string[] {
  const kbs = useLoad((signal) => listKnowledgeBases(signal), []);
  return (kbs.data?.data ?? []).map((kb) => kb.id);
}

/** `#/widgets`, `#/widgets/new`, `#/widgets/<id>`. */
export function WidgetsScreen({ route }: { route: string[] }) {
  const id = route[1];
  if (id === 'new') return <NewWidget />;
  if (id) return <WidgetPage key={id} id={id} />;
  return <WidgetList />;
}

function WidgetList() {
  const { session } = useSession();
  const widgets = useLoad((signal) => listWidgets(signal), []);
  const list = widgets.data?.data ?? [];
  return (
    <>
      <PageHeader title="Widgets">
        {session.canManage ? (
          <button type="button" className="primary" onClick={() => navigate('widgets', 'new')}>
            Create widget
          </button>
        ) : null}
      </PageHeader>
      <p className="hint">A chat assistant on your shop's own website: visitors ask, and it answers from the knowledge bases you choose.</p>
      {!session.canManage ? <p className="note">You can see the widgets; only the Owner and Admins can create, change or delete them.</p> : null}
      <ErrorNote error={widgets.error} />
      {widgets.data && list.length === 0 ? (
        <EmptyState title="No widgets yet">
          <p>
            {session.canManage ? 'Create one' : 'An Owner or Admin creates one'}: choose its knowledge bases and the sites it may appear on, then
            paste the line it gives you into the shop's pages.
          </p>
        </EmptyState>
      ) : null}
      {list.length > 0 ? (
        <DataTable caption="Widgets" columns={['Widget', 'Knowledge bases', 'Allowed origins', 'Questions today', '']}>
          {list.map((widget) => (
            <tr key={widget.id} data-widget-id={widget.id}>
              <td>
                <strong>{widget.name}</strong> <Badge value={widget.enabled ? 'active' : 'skipped'} label={widget.enabled ? 'on' : 'off'} />
                <div>
                  <code className="widget-id">{widget.id}</code>
                </div>
              </td>
              <td>{widget.knowledgeBaseIds.join(', ')}</td>
              <td>
                {widget.allowedOrigins.map((origin) => (
                  <div key={origin}>{origin}</div>
                ))}
              </td>
              <td className="number">
                {widget.questionsToday.toLocaleString()} <span className="hint">of {widget.limits.dailyQuestions.toLocaleString()}</span>
              </td>
              <td>
                <a className="button secondary" href={href('widgets', widget.id)} aria-label={`${session.canManage ? 'Edit' : 'Open'} ${widget.name}`}>
                  {session.canManage ? 'Edit' : 'Open'}
                </a>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </>
  );
}

function NewWidget() {
  const knowledgeBases = useKnowledgeBases();
  return (
    <>
      <PageHeader title="New widget">
        <a className="button secondary" href={href('widgets')}>
          All widgets
        </a>
      </PageHeader>
      <WidgetEditor
        widget={null}
        knowledgeBases={knowledgeBases}
        readOnly={false}
        submitLabel="Create widget"
        save={async (input) => {
          const created = await createWidget(input);
          justCreated.add(created.id);
          navigate('widgets', created.id);
        }}
        onCancel={() => navigate('widgets')}
      />
    </>
  );
}

/** Where the snippet points, and what to do when visitors reach LocalIQ some other way. */
function SnippetPanel({ widget, publicListener }: { widget: AdminWidget; publicListener: boolean | null }) {
  const [created] = useState(() => justCreated.has(widget.id));
  useEffect(() => {
    justCreated.delete(widget.id);
  }, [widget.id]);
  const address = new URL(widget.snippet.match(/src="([^"]+)"/)?.[1] ?? widget.pageUrl).host;
  return (
    <section className="panel widget-snippet" aria-labelledby="widget-snippet-heading">
      <h2 id="widget-snippet-heading">Add it to your shop</h2>
      {created ? (
        <p className="valid-note" role="status">
          Widget created. Paste this line into your shop's pages, before <code>&lt;/body&gt;</code>:
        </p>
      ) : (
        <p className="hint">Paste this line into your shop's pages, before <code>&lt;/body&gt;</code>:</p>
      )}
      <CodeBlock code={widget.snippet} label="snippet" />
      <p className="hint">
        {publicListener
          ? `It loads the widget from LocalIQ's public listener at ${address}.`
          : `It loads the widget from ${address}, the address you opened the dashboard at.`}{' '}
        Visitors' browsers must reach LocalIQ there: if your shop reaches it only through its own proxy or domain, write that host in
        its place.
      </p>
      <p>
        Hosted chat page, for a link or a QR code:{' '}
        <a className="hosted-page-link" href={widget.pageUrl} target="_blank" rel="noreferrer" data-testid="hosted-page">
          {widget.pageUrl}
        </a>
      </p>
    </section>
  );
}

function WidgetPage({ id }: { id: string }) {
  const { session } = useSession();
  const loaded = useLoad((signal) => getWidget(id, signal), [id]);
  const settings = useLoad((signal) => getSettings(signal), []);
  const knowledgeBases = useKnowledgeBases();
  const [confirming, setConfirming] = useState<'disable' | 'delete' | null>(null);
  const [toggleError, setToggleError] = useState<string | null>(null);
  const widget = loaded.data;
  const canManage = session.canManage;
  const setEnabled = async (enabled: boolean) => {
    loaded.setData(await updateWidget(id, { enabled }));
  };

  return (
    <>
      <PageHeader title={widget ? widget.name : 'Widget'}>
        {widget ? <Badge value={widget.enabled ? 'active' : 'skipped'} label={widget.enabled ? 'on' : 'off'} /> : null}
        {widget && canManage ? (
          <>
            {widget.enabled ? (
              <button type="button" className="secondary" onClick={() => setConfirming('disable')}>
                Disable
              </button>
            ) : (
              <button type="button" className="secondary" onClick={() => void setEnabled(true).catch((e: Error) => setToggleError(e.message))}>
                Enable
              </button>
            )}
            <button type="button" className="danger" onClick={() => setConfirming('delete')}>
              Delete
            </button>
          </>
        ) : null}
        <a className="button secondary" href={href('widgets')}>
          All widgets
        </a>
      </PageHeader>
      {!canManage ? <p className="note">You can see this widget; only the Owner and Admins can change it.</p> : null}
      <ErrorNote error={loaded.error ?? toggleError} />
      {widget ? (
        <>
          <SnippetPanel widget={widget} publicListener={settings.data ? settings.data.publicListener !== null : null} />
          <WidgetEditor
            widget={widget}
            knowledgeBases={knowledgeBases}
            readOnly={!canManage}
            submitLabel="Save changes"
            save={async (input) => loaded.setData(await updateWidget(id, input))}
            onCancel={() => navigate('widgets')}
          />
        </>
      ) : null}
      <Confirm
        title="Disable this widget?"
        open={confirming === 'disable'}
        danger={false}
        confirmLabel="Disable widget"
        message={
          <p>
            <strong>{widget?.name}</strong> disappears from {widget?.allowedOrigins.join(', ')} at the next page load. Its settings and
            conversations are kept, and you can enable it again.
          </p>
        }
        onCancel={() => setConfirming(null)}
        onConfirm={async () => {
          await setEnabled(false);
          setConfirming(null);
        }}
      />
      <Confirm
        title="Delete this widget?"
        open={confirming === 'delete'}
        confirmLabel="Delete widget"
        message={
          <p>
            <strong>{widget?.name}</strong> stops answering at once, and its line in the shop's pages shows nothing. This cannot be undone:
            a new widget gets a new line to paste.
          </p>
        }
        onCancel={() => setConfirming(null)}
        onConfirm={async () => {
          await deleteWidget(id);
          setConfirming(null);
          navigate('widgets');
        }}
      />
    </>
  );
}
