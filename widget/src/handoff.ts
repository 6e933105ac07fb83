import type { HandoffRequest, VisitorHandoffList } from '../../common/contract/handoffs.ts';
import type { WidgetStrings } from '../../common/contract/widget.ts';
import { WidgetError } from './api.ts';
import { renderAnswerText } from './answer-text.ts';
import { el } from './dom.ts';

/** A browser-side check only, to say so before sending; the server's check is the one that counts. */
const LOOKS_LIKE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type HandoffFormOptions = {
  /** The widget's resolved texts: its language's, with the owner's own (the consent wording among them) in place. */
  strings: WidgetStrings;
  question: string;
  questionMaxLength: number;
  /** Sends the handoff; rejects with the API's error. */
  send: (request: HandoffRequest) => Promise<void>;
  /** The form was sent or cancelled: the chat gives the question box its focus back. */
  done: () => void;
};

/**
 * The form a visitor leaves a question for the shop with, as a message of the log: the question
 * (filled with the one the assistant could not answer), a name, an e-mail address or a phone
 * number, and the consent (the owner's wording, or the language's). Everything typed is read as text, never as HTML.
 */
export function handoffForm(options: HandoffFormOptions): HTMLElement {
  const s = options.strings;
  let fields = 0;
  const field = (label: string, control: HTMLInputElement | HTMLTextAreaElement) => {
    const id = `localiq-handoff-${++fields}`;
    control.id = id;
    return el('p', { class: 'field' }, el('label', { for: id }, label), control);
  };
  const question = el('textarea', { rows: '2', maxlength: String(options.questionMaxLength), required: '' });
  question.value = options.question;
  const name = el('input', { type: 'text', maxlength: '100', autocomplete: 'name' });
  const email = el('input', { type: 'email', maxlength: '254', autocomplete: 'email' });
  const phone = el('input', { type: 'tel', maxlength: '30', autocomplete: 'tel' });
  const consent = el('input', { type: 'checkbox' });
  const error = el('p', { class: 'error', role: 'alert', hidden: '' });
  const submit = el('button', { type: 'submit', class: 'primary' }, s.handoffSend);
  const cancel = el('button', { type: 'button' }, s.handoffCancel);
  const form = el(
    'form',
    { class: 'handoff', 'aria-label': s.handoffOffer, novalidate: '' },
    el('p', { class: 'title' }, s.handoffOffer),
    field(s.handoffQuestion, question),
    field(s.handoffName, name),
    field(s.handoffEmail, email),
    field(s.handoffPhone, phone),
    el('p', { class: 'hint' }, s.handoffContactHint),
    el('label', { class: 'consent' }, consent, el('span', null, s.handoffConsent)),
    error,
    el('p', { class: 'actions' }, submit, cancel),
  );
  const bubble = el('div', { class: 'msg bot' }, form);
  const fail = (message: string) => {
    error.textContent = message;
    error.hidden = false;
  };

  cancel.addEventListener('click', () => {
    bubble.remove();
    options.done();
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const request = {
      question: question.value.trim(),
      ...(name.value.trim() ? { name: name.value.trim() } : {}),
      ...(email.value.trim() ? { email: email.value.trim() } : {}),
      ...(phone.value.trim() ? { phone: phone.value.trim() } : {}),
      consent: true as const,
    };
    if (!request.question) return question.focus();
    if (!request.email && !request.phone) return fail(s.handoffNeedContact);
    if (request.email && !LOOKS_LIKE_EMAIL.test(request.email)) return fail(s.handoffInvalidEmail);
    if (!consent.checked) return fail(s.handoffNeedConsent);
    submit.disabled = true;
    try {
      await options.send(request);
      bubble.replaceChildren(el('p', { class: 'sent' }, s.handoffSent));
      options.done();
    } catch (caught) {
      fail(refusalText(caught, s));
    } finally {
      submit.disabled = false;
    }
  });
  return bubble;
}

/** What to tell the visitor about a refused handoff, from the API's error. */
function refusalText(error: unknown, s: WidgetStrings): string {
  if (!(error instanceof WidgetError)) return s.handoffFailed;
  if (error.code === 'rate_limited' && error.retryAfter === null) return s.handoffTooMany;
  return error.code === 'invalid_body' ? s.handoffInvalidContact : s.handoffFailed;
}

/** The line before the team's reply: the language's (or the owner's) text with the question in place of `{question}`. */
export function repliedTo(s: WidgetStrings, question: string): string {
  return s.handoffReplied.replace('{question}', () => question);
}

/** The shop's reply to a handoff, as a message: 'The team replied to "…":' and the reply, as text. */
export function replyMessage(handoff: VisitorHandoffList['handoffs'][number], s: WidgetStrings): HTMLElement | null {
  if (!handoff.reply) return null;
  const bubble = el('div', { class: 'msg bot reply' }, el('p', { class: 'replied' }, repliedTo(s, handoff.question)));
  bubble.append(renderAnswerText(handoff.reply.text));
  return bubble;
}
