import { el } from './dom.ts';

/**
 * An answer's plain text as nodes: one paragraph a line (blank lines keep their gap), "- " and
 * "* " lines as a list, **bold** as <strong>. Everything is text content, so an item that holds
 * `<script>` or `javascript:` shows exactly that, as text.
 */
export function renderAnswerText(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  let list: HTMLUListElement | null = null;
  for (const line of text.split('\n')) {
    const item = /^\s*[-*•]\s+(.*)$/.exec(line);
    if (item) {
      list ??= fragment.appendChild(el('ul'));
      list.append(el('li', null, ...withBold(item[1] ?? '')));
      continue;
    }
    list = null;
    fragment.append(line.trim() ? el('p', null, ...withBold(line)) : el('p', { class: 'gap' }));
  }
  return fragment;
}

function withBold(line: string): Array<Node | string> {
  // split with a capture group: odd pieces are the text between ** and **.
  return line.split(/\*\*(.+?)\*\*/).map((piece, i) => (i % 2 ? el('strong', null, piece) : piece));
}
