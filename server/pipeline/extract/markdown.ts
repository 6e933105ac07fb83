import type { Nodes, Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTable } from 'micromark-extension-gfm-table';
import { cleanLine, cleanText } from '../text/clean-text.ts';
import type { DocumentSection, ExtractedDocument } from './document.ts';
import { HeadingPath } from './heading-path.ts';
import { escapeEmphasisFloods } from './markdown-emphasis.ts';

/**
 * Markdown through a CommonMark parser (mdast-util-from-markdown, on micromark, with GitHub's
 * table extension): sections at its
 * headings, each block as a paragraph of plain text (no markup characters left to be searched or
 * quoted). The title is the first first-level heading. A block flooded with emphasis markers is
 * read as plain text (markdown-emphasis.ts), so the parse stays linear in the file.
 */
export function extractMarkdown(markdown: string): ExtractedDocument {
  // GitHub's tables too: price lists and specifications in Markdown are mostly tables.
  const tree: Root = fromMarkdown(escapeEmphasisFloods(markdown), { extensions: [gfmTable()], mdastExtensions: [gfmTableFromMarkdown()] });
  const sections: DocumentSection[] = [];
  const path = new HeadingPath();
  let title: string | null = null;
  let blocks: string[] = [];
  const flush = () => {
    const text = cleanText(blocks.join('\n\n'));
    if (text) sections.push({ headings: path.current(), text });
    blocks = [];
  };
  for (const node of tree.children) {
    if (node.type === 'heading') {
      flush();
      const heading = cleanLine(plainText(node));
      if (heading) {
        path.enter(node.depth, heading);
        if (node.depth === 1) title ??= heading;
      }
      continue;
    }
    const text = blockText(node);
    if (text.trim()) blocks.push(text);
  }
  flush();
  return { title, sections };
}

/** A top-level block as text: list items one per line, table rows with " | ", code as it is. */
function blockText(node: RootContent): string {
  switch (node.type) {
    case 'list':
      return node.children.map((item) => `- ${item.children.map(blockText).join(' ')}`).join('\n');
    case 'table':
      return node.children.map((row) => row.children.map((cell) => plainText(cell).trim()).join(' | ')).join('\n');
    case 'code':
      return node.value;
    case 'html':
    case 'definition':
    case 'thematicBreak':
    case 'yaml' as RootContent['type']:
      return '';
    default:
      return plainText(node);
  }
}

/** The text of a node, inline markup left out (a link's text, not its address). */
function plainText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string' && node.type !== 'html') return node.value;
  if (node.type === 'break') return '\n';
  if ('children' in node) return (node.children as Nodes[]).map(plainText).join(node.type === 'listItem' || node.type === 'blockquote' ? '\n' : '');
  return '';
}
