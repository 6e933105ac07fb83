/**
 * HTML → plain text with `html-to-text`, tuned for search rather than for e-mail: no uppercased
 * headings, no link targets, no images or page chrome, tables as one line per row.
 */
import { compile, type DomNode, type FormatCallback, type SelectorDefinition } from 'html-to-text';

// Only real tag names count as markup, so plain text such as "press <Enter>" or "a<b" stays text.
const TAG_NAMES =
  'a|abbr|address|area|article|aside|audio|b|bdi|bdo|big|blockquote|body|br|button|canvas|caption|center|cite|code|col|' +
  'colgroup|data|dd|del|details|dfn|dialog|div|dl|dt|em|embed|fieldset|figcaption|figure|font|footer|form|h[1-6]|head|' +
  'header|hr|html|i|iframe|img|input|ins|kbd|label|legend|li|link|main|map|mark|meta|meter|nav|noscript|object|ol|' +
  'optgroup|option|output|p|picture|pre|progress|q|rp|rt|ruby|s|samp|script|section|select|small|source|span|strike|' +
  'strong|style|sub|summary|sup|svg|table|tbody|td|template|textarea|tfoot|th|thead|time|title|tr|track|tt|u|ul|var|' +
  'video|wbr';
const TAG = `(?:!--|!doctype\\b|\\/?(?:${TAG_NAMES})(?:\\s[^<>]*)?\\/?>)`;
const HTML_TAG = new RegExp(`<${TAG}`, 'i');
/** A "<" that opens no real tag: "List<String>" in a code sample, "a < b". */
const NOT_A_TAG = new RegExp(`<(?!${TAG})`, 'gi');
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
/** The same, keeping the text's own line breaks. */
const convertInlineHtml = compile({ wordwrap: false, preserveNewlines: true, selectors, formatters: { searchableTable } });

// Elements that lay out blocks of their own. Text with none of them is paragraphs written with
// blank lines and a few inline tags ("<strong>", "<a>"), as WordPress stores posts: its line
// breaks are its paragraphs, which the HTML reading of it (whitespace is one space) would merge.
const BLOCK_TAG =
  /<\/?(?:address|article|aside|blockquote|body|dd|details|div|dl|dt|figure|footer|h[1-6]|header|hr|html|li|main|ol|p|pre|section|table|td|th|tr|ul)(?:\s[^<>]*)?\/?>/i;

// For entity-escaped plain text: the parser only decodes, newlines are kept as they are.
const decodeText = compile({ wordwrap: false, preserveNewlines: true });

export function htmlToPlainText(html: string): string {
  // Written as text, such a "<" stays: a browser would take "<String>" for an unknown element and
  // show nothing, but in content pushed for search it is a code sample's words.
  const markup = html.replace(NOT_A_TAG, '&lt;');
  return BLOCK_TAG.test(markup) ? convertHtml(markup) : convertInlineHtml(markup);
}

/** Decodes HTML entities in text that is not markup ("Tom &amp; Jerry"), leaving everything else as is. */
export function decodeHtmlEntities(text: string): string {
  // Escaping "<" first makes the parser see the whole input as text, whatever it contains.
  return decodeText(text.replaceAll('<', '&lt;'));
}
