import { useEffect, useRef } from 'react';
import type { AdminItemDetail, AdminOriginal } from '../../../../common/contract/admin.ts';
import { getItem, type ItemIdentity, originalUrl } from '../../api/items.ts';
import { EmptyState, ErrorNote, PageHeader, useLoad } from '../../components/ui.tsx';
import { formatBytes } from '../../format.ts';
import { href } from '../../router.ts';

/** Where in a document to open it: a page (PDF) or a section ("Returns › Damaged goods"). */
export type DocumentPlace = { page?: number | undefined; section?: string | undefined };

/** The document view of an item, opened at a page or section when one is given (a citation's). */
export function documentHref(item: ItemIdentity, at: DocumentPlace = {}): string {
  const base = ['knowledge', item.knowledgeBaseId, 'items', item.integrationId, item.externalId, 'document'];
  if (at.page !== undefined) return href(...base, 'page', String(at.page));
  if (at.section) return href(...base, 'section', at.section);
  return href(...base);
}

type Chunk = AdminItemDetail['chunks'][number];
type Part = { key: string; label: string; page?: number; section?: string; chunks: Chunk[] };

/**
 * The document's chunks in order, grouped by page (a PDF) or else by section (headings of Word,
 * Markdown and HTML): consecutive chunks of the same place make one part.
 */
export function documentParts(chunks: Chunk[]): Part[] {
  const byPage = chunks.some((c) => c.page !== undefined);
  const parts: Part[] = [];
  for (const chunk of chunks) {
    const key = byPage ? `page-${chunk.page ?? 'none'}` : `section-${chunk.section ?? ''}`;
    const last = parts.at(-1);
    if (last && last.key === key) {
      last.chunks.push(chunk);
      continue;
    }
    if (byPage) parts.push({ key, label: chunk.page !== undefined ? `Page ${chunk.page}` : 'Without a page', ...(chunk.page !== undefined ? { page: chunk.page } : {}), chunks: [chunk] });
    else parts.push({ key, label: chunk.section || 'Before the first heading', ...(chunk.section ? { section: chunk.section } : {}), chunks: [chunk] });
  }
  return parts;
}

function isAt(part: Part, at: DocumentPlace): boolean {
  return at.page !== undefined ? part.page === at.page : at.section !== undefined && part.section === at.section;
}

/**
 * The link to an item's uploaded file: opened in a new tab (a PDF at the page), or for a Word
 * document, which browsers do not show, downloaded.
 */
export function OriginalLink({ item, original, page, className }: { item: ItemIdentity; original: AdminOriginal; page?: number | undefined; className: string }) {
  const url = originalUrl(item, original, page);
  return original.kind === 'docx' ? (
    <a className={className} href={url} download={original.fileName}>
      Download original
    </a>
  ) : (
    <a className={className} href={url} target="_blank" rel="noopener noreferrer">
      Open original
    </a>
  );
}

/** An item read as a document: its pages or sections with their text, and its original file. */
export function DocumentView({ item, at }: { item: ItemIdentity; at: DocumentPlace }) {
  const { data, error } = useLoad((signal) => getItem(item, signal), [item.knowledgeBaseId, item.integrationId, item.externalId]);
  const detail = data?.indexed ? data : null;
  const parts = detail ? documentParts(detail.chunks) : [];
  const target = useRef<HTMLElement>(null);
  const atKey = `${at.page ?? ''}\u0000${at.section ?? ''}`;
  useEffect(() => {
    // The cited page or section comes into view and takes the focus, so a screen reader starts there.
    target.current?.scrollIntoView({ block: 'start' });
    target.current?.focus({ preventScroll: true });
  }, [atKey, parts.length]);
  const itemLink = href('knowledge', item.knowledgeBaseId, 'items', item.integrationId, item.externalId);
  const byPage = parts.some((p) => p.page !== undefined);

  return (
    <>
      <PageHeader title={detail ? detail.title || item.externalId : item.externalId}>
        <a className="button secondary" href={itemLink}>
          Item details
        </a>
        {detail?.original ? <OriginalLink item={item} original={detail.original} page={at.page} className="button primary" /> : null}
      </PageHeader>
      <ErrorNote error={error} />
      {data && !data.indexed ? (
        <EmptyState title="Not indexed (yet)">
          <p>
            This item has no indexed text yet; its jobs are on the <a href={itemLink}>item page</a>.
          </p>
        </EmptyState>
      ) : null}
      {detail ? (
        <div className="document">
          <nav className="document-toc panel" aria-label={byPage ? 'Pages' : 'Sections'}>
            <h2>{byPage ? 'Pages' : 'Sections'}</h2>
            {detail.original ? (
              <p className="hint">
                {detail.original.fileName}, {formatBytes(detail.original.bytes)}
              </p>
            ) : (
              <p className="hint">The uploaded file is not kept.</p>
            )}
            <ol>
              {parts.map((part) => (
                <li key={part.key}>
                  <a href={documentHref(item, part)} aria-current={isAt(part, at) ? 'location' : undefined}>
                    {part.label}
                  </a>
                </li>
              ))}
            </ol>
          </nav>
          <div className="document-parts">
            {parts.map((part) => {
              const current = isAt(part, at);
              return (
                <section
                  key={part.key}
                  ref={current ? target : undefined}
                  tabIndex={current ? -1 : undefined}
                  className={`panel document-part${current ? ' current' : ''}`}
                  aria-labelledby={`${part.key}-heading`}
                  data-testid="document-part"
                >
                  <div className="document-part-header">
                    <h2 id={`${part.key}-heading`}>{part.label}</h2>
                    {current ? <span className="badge info">Cited</span> : null}
                    {detail.original?.kind === 'pdf' && part.page !== undefined ? (
                      <a href={originalUrl(item, detail.original, part.page)} target="_blank" rel="noopener noreferrer">
                        Open page {part.page} of the original
                      </a>
                    ) : null}
                  </div>
                  {part.chunks.map((chunk) => (
                    <p key={chunk.id} className="document-text">
                      {chunk.text}
                    </p>
                  ))}
                </section>
              );
            })}
          </div>
        </div>
      ) : null}
    </>
  );
}
