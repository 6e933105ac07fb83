import { citationPlace as placeAfterTitle } from '../../common/citation-place.ts';
import type { VisitorCitation, WidgetStrings } from '../../common/contract/widget.ts';
import { webLink } from '../../common/web-link.ts';
import { renderAnswerText } from './answer-text.ts';
import { ICONS, el, icon } from './dom.ts';

/** The bubbles of the conversation log. Everything the server or the visitor wrote is text. */

export function userMessage(text: string): HTMLElement {
  return el('div', { class: 'msg user' }, text);
}

export function botMessage(text: string): HTMLElement {
  const bubble = el('div', { class: 'msg bot' });
  bubble.append(renderAnswerText(text));
  return bubble;
}

/** Where in a document the cited passage is, after its title: ", page 2" or ", Returns › Damaged goods". */
export function citationPlace(citation: VisitorCitation, strings: WidgetStrings): string {
  return placeAfterTitle(citation, strings.page);
}

export function sourcesList(citations: VisitorCitation[], strings: WidgetStrings): HTMLElement {
  const list = el('ol');
  for (const citation of citations) {
    const href = webLink(citation.url);
    const title = citation.title || href || String(citation.number);
    const place = citationPlace(citation, strings);
    list.append(
      el(
        'li',
        { value: String(citation.number) },
        href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow' }, title) : title,
        place,
      ),
    );
  }
  return el('div', { class: 'sources' }, el('p', null, strings.sources), list);
}

/** Thumbs up and down; `rate` resolves true once the server took the feedback. */
export function ratingButtons(strings: WidgetStrings, rate: (rating: 'up' | 'down') => Promise<boolean>): HTMLElement {
  const row = el('div', { class: 'rate' });
  const button = (rating: 'up' | 'down', label: string, path: string) => {
    const b = el('button', { type: 'button', 'aria-label': label, title: label }, icon(path));
    b.addEventListener('click', async () => {
      const buttons = Array.from(row.querySelectorAll('button'));
      for (const other of buttons) other.disabled = true;
      if (await rate(rating)) row.replaceWith(thanksNote(strings));
      else for (const other of buttons) other.disabled = false;
    });
    return b;
  };
  row.append(button('up', strings.helpful, ICONS.thumbUp), button('down', strings.notHelpful, ICONS.thumbDown));
  return row;
}

/** "Showing results for <question as read>": the assistant read a word of the question as another. */
export function correctedNote(correctedQuery: string, strings: WidgetStrings): HTMLElement {
  return el('p', { class: 'read-as' }, `${strings.showingResultsFor} `, el('em', null, correctedQuery));
}

export const thanksNote = (strings: WidgetStrings) => el('p', { class: 'thanks' }, strings.thanks);
