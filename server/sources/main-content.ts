import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { normalizeUrl } from './url-rules.ts';

/** What a crawl keeps of an HTML page. */
export type PageContent = {
  title: string | null;
  /** The page's `<link rel=canonical>`, absolute, or null. */
  canonical: string | null;
  /** `<meta name=robots|localiq content=noindex>` (or `none`). */
  noindex: boolean;
  /** `nofollow` (or `none`): the page's links are not followed. */
  nofollow: boolean;
  /** Addresses the page links to (absolute, without fragments), in order, each once. */
  links: string[];
  /** The main content as HTML with its headings: what the pipeline reads as an uploaded HTML document. */
  html: string;
  /** The main content as plain text, paragraphs apart: what a change is judged on. */
  text: string;
};

/**
 * Parts of a page that are never its content, removed before Readability reads it: navigation,
 * the site header and footer, sidebars, cookie and newsletter banners, dialogs, forms, scripts.
 * Readability alone keeps a cookie banner that sits in the body's text flow.
 */
const BOILERPLATE = [
  'script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas', 'form', 'button', 'select', 'input', 'textarea',
  'nav', 'header', 'footer', 'aside', 'dialog',
  '[role=navigation]', '[role=banner]', '[role=contentinfo]', '[role=complementary]', '[role=dialog]', '[role=alertdialog]', '[role=search]',
  '[aria-hidden=true]', '[hidden]',
].join(',');
const BOILERPLATE_NAME = /(^|[\s_-])(cookie|cookies|consent|gdpr|newsletter|subscribe|popup|modal|overlay|breadcrumbs?|share|sharing|social|related|sidebar|skip-link|announcement-bar|site-header|site-footer|menu|navbar|nav)([\s_-]|$)/i;
const BLOCK = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'MAIN', 'LI', 'UL', 'OL', 'DL', 'DT', 'DD', 'TABLE', 'TR', 'BLOCKQUOTE', 'PRE', 'FIGURE', 'FIGCAPTION', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'BR', 'HR', 'ADDRESS']);

type Node = { nodeType: number; nodeName: string; textContent: string | null; childNodes: ArrayLike<Node> };
type Element = Node & { getAttribute(name: string): string | null; remove(): void; id: string; className: string };

/** A page whose markup cannot be read (nested beyond what the parser's stack holds). */
export class UnreadablePage extends Error {
  override readonly name = 'UnreadablePage';
}

export function extractMainContent(html: string, pageUrl: string): PageContent {
  try {
    return readPage(html, pageUrl);
  } catch (error) {
    if (error instanceof RangeError) throw new UnreadablePage('its HTML is nested too deep to read');
    throw error;
  }
}

function readPage(html: string, pageUrl: string): PageContent {
  const { document } = parseHTML(html);
  const base = normalizeUrl(document.querySelector('base[href]')?.getAttribute('href') ?? '', pageUrl) ?? pageUrl;
  const robots = Array.from(document.querySelectorAll('meta[name]'))
    .filter((meta) => /^(robots|localiq)$/i.test(meta.getAttribute('name') ?? ''))
    .flatMap((meta) => (meta.getAttribute('content') ?? '').toLowerCase().split(','))
    .map((directive) => directive.trim());
  const canonicalHref = document.querySelector('link[rel~=canonical][href]')?.getAttribute('href');
  const links: string[] = [];
  const seen = new Set<string>();
  for (const anchor of Array.from(document.querySelectorAll('a[href], area[href]'))) {
    const url = normalizeUrl(anchor.getAttribute('href') ?? '', base);
    if (url && !seen.has(url)) {
      seen.add(url);
      links.push(url);
    }
  }
  const titleTag = clean(document.querySelector('title')?.textContent ?? '');
  for (const element of Array.from(document.querySelectorAll(BOILERPLATE))) element.remove();
  for (const element of Array.from(document.querySelectorAll('[id], [class]')) as unknown as Element[]) {
    const name = `${element.id ?? ''} ${element.getAttribute('class') ?? ''}`;
    if (BOILERPLATE_NAME.test(name) && !isMainRegion(element)) element.remove();
  }
  // Readability's time grows with the tree's depth times its size: a hostile page nested thousands
  // deep would hold a sync for minutes, so such a page is read by the plain fallback below.
  const article = withinReadabilityBounds(document.body as unknown as Node)
    ? new Readability(document as unknown as Document, { charThreshold: 200, keepClasses: false }).parse()
    : null;
  let region = article?.content ? (parseHTML(`<html><body>${article.content}</body></html>`).document.body as unknown as Node) : null;
  let text = region ? textOf(region) : '';
  // The page's main region (or body) with the boilerplate gone: what a short page is read from, and
  // a page whose content sits in several equal boxes (cards, columns), of which Readability keeps one.
  const mainRegion = (document.querySelector('main, [role=main]') ?? document.querySelector('article') ?? document.body) as unknown as Node | null;
  const regionText = mainRegion ? textOf(mainRegion) : '';
  if (text.length < 40 || text.length < regionText.length * READABILITY_SHARE_KEPT) {
    region = mainRegion;
    text = regionText;
  }
  const contentHtml = region ? safeHtml(region) : '';
  const title = clean(article?.title ?? '') || titleTag || null;
  return {
    title,
    canonical: canonicalHref ? normalizeUrl(canonicalHref, base) : null,
    noindex: robots.includes('noindex') || robots.includes('none'),
    nofollow: robots.includes('nofollow') || robots.includes('none'),
    links,
    html: `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title ?? '')}</title></head><body>${contentHtml}</body></html>`,
    text,
  };
}

/**
 * Below this share of the main region's text, Readability is taken to have kept one box of many
 * (measured on test/fixtures/pages with bench:site-extraction).
 */
const READABILITY_SHARE_KEPT = 0.5;

/** Deeper than real pages are (their deepest run some 30–60 elements), or larger than a long page. */
const READABILITY_MAX_DEPTH = 120;
const READABILITY_MAX_ELEMENTS = 30_000;

function withinReadabilityBounds(body: Node | null): boolean {
  if (!body) return false;
  let elements = 0;
  const stack: Array<[Node, number]> = [[body, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > READABILITY_MAX_DEPTH || ++elements > READABILITY_MAX_ELEMENTS) return false;
    for (const child of Array.from(node.childNodes)) if (child.nodeType === 1) stack.push([child, depth + 1]);
  }
  return true;
}

/** `<main>`, `<article>` and `role=main` hold the content even when a theme names them after a menu. */
function isMainRegion(element: Element): boolean {
  return ['MAIN', 'ARTICLE', 'BODY', 'HTML'].includes(element.nodeName) || element.getAttribute('role') === 'main';
}

/** Elements kept in the stored HTML: what gives the text its structure. Everything else keeps only its text. */
const KEPT = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'P', 'UL', 'OL', 'LI', 'DL', 'DT', 'DD', 'TABLE', 'TR', 'TH', 'TD', 'PRE', 'BLOCKQUOTE', 'BR']);

/**
 * The subtree as HTML of a few structural elements with no attributes and escaped text: the
 * stored copy carries no script, handler, style or address, whatever the page held.
 */
function safeHtml(root: Node): string {
  const out: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === 3) {
      out.push(escapeHtml(node.textContent ?? ''));
      return;
    }
    if (node.nodeType !== 1) return;
    const name = node.nodeName.toUpperCase();
    const kept = KEPT.has(name);
    if (name === 'BR') return void out.push('<br>');
    if (kept) out.push(`<${name.toLowerCase()}>`);
    else if (BLOCK.has(name)) out.push('\n');
    for (const child of Array.from(node.childNodes)) walk(child);
    if (kept) out.push(`</${name.toLowerCase()}>`);
    else if (BLOCK.has(name)) out.push('\n');
  };
  walk(root);
  return out.join('');
}

/** Plain text of a subtree: blocks apart by blank lines, runs of spaces as one. */
export function textOf(root: Node): string {
  const out: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === 3) {
      out.push(node.textContent ?? '');
      return;
    }
    if (node.nodeType !== 1) return;
    const block = BLOCK.has(node.nodeName.toUpperCase());
    const cell = node.nodeName.toUpperCase() === 'TD' || node.nodeName.toUpperCase() === 'TH';
    if (block) out.push('\n\n');
    if (cell) out.push(' ');
    for (const child of Array.from(node.childNodes)) walk(child);
    if (cell) out.push(' ');
    if (block) out.push('\n\n');
  };
  walk(root);
  return out
    .join('')
    .split(/\n\s*\n/)
    .map(clean)
    .filter(Boolean)
    .join('\n\n');
}

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
