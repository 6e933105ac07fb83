/**
 * HTML → plain text with `html-to-text`, tuned for search rather than for e-mail: no uppercased
 * headings, no link targets, no images or page chrome, tables as one line per row.
 */
import { compile, type DomNode, type FormatCallback, type SelectorDefinition } from 'html-to-text';

// Only real tag names count as markup, so plain text such as "press <Enter>" or "a<b" stays text.
const HTML_TAG =
  /<(?:!--|!doctype\b|\/?(?:a|abbr|address|article|aside|b|blockquote|body|br|caption|cite|code|dd|del|details|div|dl|dt|em|figcaption|figure|footer|h[1-6]|head|header|hr|html|i|iframe|img|ins|li|main|mark|nav|noscript|ol|p|picture|pre|q|s|script|section|small|span|strong|style|sub|summary|sup|table|tbody|td|tfoot|th|thead|title|tr|u|ul)(?:\s[^<>]*)?\/?>)/i;
const HTML_ENTITY = /&(?:#\d{1,7}|#x[\da-f]{1,6}|[a-z][a-z\d]{1,31});/i;

export function looksLikeHtml(text: string): boolean {
  return HTML_TAG.test(text);
}

export function hasHtmlEntity(text: string): boolean {
  return HTML_ENTITY.test(text);
}

const SKIPPED = [
  'script', 'style', 'noscript', 'template', 'head', 'title', 'iframe', 'object', 'embed', 'svg', 'canvas',
  'video', 'audio', 'img', 'picture', 'map', 'nav', 'button', 'select', 'input', 'textarea',
  '[hidden]', '[aria-hidden="true"]',
];
// Block elements html-to-text would otherwise run together with their neighbours ("TermDefinition").
const LINE_BLOCKS = ['dt', 'dd', 'figure', 'figcaption', 'address', 'details', 'summary', 'fieldset', 'legend', 'caption'];
const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

/**
 * A data table becomes one line per row, cells joined by " | ", which reads well and keeps each
 * row's values together for search. Cells holding several blocks mean a layout table: its cells
 * are then written out as ordinary blocks so the page structure survives.
 */
const searchableTable: FormatCallback = (elem, walk, builder, formatOptions) => {
  builder.openTable();
  for (const row of tableRows(elem)) {
    builder.openTableRow();
    for (const cell of row) {
      builder.openTableCell();
      walk(cell.children, builder);
      builder.closeTableCell();
    }
    builder.closeTableRow();
  }
  builder.closeTable({
    tableToString: (rows) =>
      rows
        .map((cells) => cells.map((cell) => cell.text.trim()).filter(Boolean))
        .filter((cells) => cells.length > 0)
        .map((cells) => (cells.some((text) => text.includes('\n')) ? cells.join('\n\n') : cells.join(' | ')))
        .join('\n'),
    leadingLineBreaks: formatOptions.leadingLineBreaks ?? 2,
    trailingLineBreaks: formatOptions.trailingLineBreaks ?? 2,
  });
};

/** Rows of the table itself (through thead/tbody/tfoot), not those of tables nested in cells. */
function tableRows(table: DomNode): DomNode[][] {
  const rows: DomNode[][] = [];
  const visit = (node: DomNode) => {
    for (const child of node.children) {
      if (child.type !== 'tag') continue;
      if (child.name === 'tr') {
        rows.push(child.children.filter((c) => c.type === 'tag' && (c.name === 'td' || c.name === 'th')));
      } else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') {
        visit(child);
      }
    }
  };
  visit(table);
  return rows;
}

const selectors: SelectorDefinition[] = [
  ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
  ...LINE_BLOCKS.map((selector) => ({ selector, format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } })),
  ...HEADINGS.map((selector) => ({ selector, options: { uppercase: false } })),
  { selector: 'a', options: { ignoreHref: true } },
  { selector: 'ul', options: { itemPrefix: '- ' } },
  ...['blockquote', 'dl'].map((selector) => ({ selector, format: 'block', options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } })),
  { selector: 'hr', format: 'blockString', options: { string: '', leadingLineBreaks: 2, trailingLineBreaks: 2 } },
  { selector: 'table', format: 'searchableTable' },
];

/** Compiled once: html-to-text builds its selector decision tree at compile time. */
const convertHtml = compile({ wordwrap: false, selectors, formatters: { searchableTable } });

// For entity-escaped plain text: the parser only decodes, newlines are kept as they are.
const decodeText = compile({ wordwrap: false, preserveNewlines: true });

export function htmlToPlainText(html: string): string {
  return convertHtml(html);
}

/** Decodes HTML entities in text that is not markup ("Tom &amp; Jerry"), leaving everything else as is. */
export function decodeHtmlEntities(text: string): string {
  // Escaping "<" first makes the parser see the whole input as text, whatever it contains.
  return decodeText(text.replaceAll('<', '&lt;'));
}
