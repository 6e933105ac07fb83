import { type FormEvent, useEffect, useState } from 'react';
import type { z } from 'zod';
import { ErrorAnswer } from '../../../../common/contract/errors.ts';
import { VISITOR_QUESTION_MAX } from '../../../../common/contract/visitor-limits.ts';
import {
  allowedOriginSchema,
  type PublicWidgetConfig,
  WIDGET_POSITIONS,
  type Widget,
  type WidgetInput,
  type WidgetLimits,
  type WidgetStrings,
  widgetInputSchema,
} from '../../../../common/contract/widget.ts';
import { messageIn, resolveWidgetTexts, WIDGET_LANGUAGE_NAMES, WIDGET_LANGUAGES, WIDGET_TEXTS, type WidgetLanguage } from '../../../../common/contract/widget-texts.ts';
import { KnowledgeBasePicker, type KnowledgeBasePickerText } from '../../components/knowledge-base-picker.tsx';
import { ErrorNote, errorText } from '../../components/ui.tsx';
import { WidgetPreview } from './widgets-preview.tsx';

type Position = (typeof WIDGET_POSITIONS)[number];
type StringKey = keyof WidgetStrings;
type LimitKey = keyof WidgetLimits;

/** The form as typed: origins one per line, numbers as their inputs hold them, unset texts empty. */
export type WidgetDraft = {
  name: string;
  knowledgeBaseIds: string[];
  origins: string;
  /** '' (a new widget only): the server picks the first knowledge base's language, else English. */
  language: WidgetLanguage | '';
  greeting: string;
  starterQuestions: string[];
  fallbackMessage: string;
  themeColor: string;
  position: Position;
  strings: Partial<Record<StringKey, string>>;
  limits: Record<LimitKey, string>;
  sendPageUrl: boolean;
  enabled: boolean;
};

/** The contract's defaults, read from its schema so the form never drifts from what the server fills in. */
const DEFAULTS = widgetInputSchema.parse({ name: 'x', knowledgeBaseIds: ['x'], allowedOrigins: ['https://x.example'] });
const MAX_STARTERS = 4;

const STRING_LABELS: Record<StringKey, string> = {
  launcherLabel: 'Launcher button',
  title: 'Panel title',
  placeholder: 'Question box (hint inside it)',
  inputLabel: 'Question box (name read by screen readers)',
  send: 'Send button',
  close: 'Close button',
  thinking: 'While an answer is looked up',
  busy: 'When the assistant is busy',
  rateLimited: 'When a visitor asked too often',
  unreachable: 'When LocalIQ cannot be reached',
  sources: 'Sources heading',
  helpful: 'Helpful button',
  notHelpful: 'Not helpful button',
  thanks: 'After feedback',
  newConversation: 'New conversation button',
  showingResultsFor: 'Before a question read with a typo corrected',
  page: 'Before the page number of a source',
  product: 'Product card (read by screen readers)',
  noScript: 'Hosted page without JavaScript',
  handoffOffer: 'Offer to pass the question to the team (also the form\'s title)',
  handoffOfferHint: 'Under an unanswered question, before the offer',
  handoffQuestion: 'Handoff form: question',
  handoffName: 'Handoff form: name',
  handoffEmail: 'Handoff form: e-mail',
  handoffPhone: 'Handoff form: phone',
  handoffContactHint: 'Handoff form: why a contact is asked for',
  handoffConsent: 'Consent for being contacted',
  handoffSend: 'Handoff form: send button',
  handoffCancel: 'Handoff form: cancel button',
  handoffSent: 'After the question was passed on',
  handoffNeedContact: 'Handoff form: no e-mail or phone given',
  handoffNeedConsent: 'Handoff form: consent not ticked',
  handoffInvalidEmail: 'Handoff form: e-mail address not valid',
  handoffInvalidContact: 'Handoff form: contact refused by the server',
  handoffTooMany: 'Handoff form: too many questions left',
  handoffFailed: 'Handoff form: could not be sent',
  handoffReplied: "Before the team's reply ({question} is the question)",
  didYouMean: 'Above the closest of your answers offered after an unanswered question',
};

const LIMIT_LABELS: Record<LimitKey, string> = {
  visitorQuestionsPerMinute: 'Per visitor per minute',
  widgetQuestionsPerMinute: 'All visitors per minute',
  dailyQuestions: 'Per day (UTC)',
};

export function draftOf(widget: Widget | null): WidgetDraft {
  const source = widget ?? { ...DEFAULTS, name: '', knowledgeBaseIds: [], allowedOrigins: [] };
  return {
    name: source.name,
    knowledgeBaseIds: source.knowledgeBaseIds,
    origins: source.allowedOrigins.join('\n'),
    language: widget?.language ?? '',
    greeting: source.greeting,
    starterQuestions: source.starterQuestions,
    fallbackMessage: source.fallbackMessage,
    themeColor: source.themeColor,
    position: source.position,
    strings: source.strings,
    limits: {
      visitorQuestionsPerMinute: String(source.limits.visitorQuestionsPerMinute),
      widgetQuestionsPerMinute: String(source.limits.widgetQuestionsPerMinute),
      dailyQuestions: String(source.limits.dailyQuestions),
    },
    sendPageUrl: source.sendPageUrl,
    enabled: source.enabled,
  };
}

const originLines = (text: string) => text.split('\n').map((line) => line.trim()).filter(Boolean);
const starters = (draft: WidgetDraft) => draft.starterQuestions.map((q) => q.trim()).filter(Boolean);
/** Texts left empty take the default, so a widget follows later improvements of the defaults. */
const ownStrings = (draft: WidgetDraft) => Object.fromEntries(Object.entries(draft.strings).filter(([, text]) => text)) as Partial<WidgetStrings>;

/** What the admin API is sent: every field, as the contract names it. */
export function inputOf(draft: WidgetDraft): WidgetInput {
  return {
    name: draft.name,
    knowledgeBaseIds: draft.knowledgeBaseIds,
    allowedOrigins: originLines(draft.origins),
    ...(draft.language ? { language: draft.language } : {}),
    greeting: draft.greeting,
    starterQuestions: starters(draft),
    fallbackMessage: draft.fallbackMessage,
    themeColor: draft.themeColor,
    position: draft.position,
    strings: ownStrings(draft),
    limits: {
      visitorQuestionsPerMinute: Number(draft.limits.visitorQuestionsPerMinute),
      widgetQuestionsPerMinute: Number(draft.limits.widgetQuestionsPerMinute),
      dailyQuestions: Number(draft.limits.dailyQuestions),
    },
    sendPageUrl: draft.sendPageUrl,
    enabled: draft.enabled,
  };
}

/**
 * The config the widget draws itself from, as the server would send it for these settings: its
 * language's texts under the widget's own, and the last valid colour while one is being typed.
 */
export function previewConfigOf(draft: WidgetDraft, widgetId: string | null): PublicWidgetConfig {
  const language = draft.language || 'en';
  return {
    id: widgetId ?? 'wgt_preview',
    language,
    greeting: messageIn(language, 'greeting', draft.greeting),
    starterQuestions: starters(draft),
    fallbackMessage: messageIn(language, 'fallbackMessage', draft.fallbackMessage),
    themeColor: widgetInputSchema.shape.themeColor.safeParse(draft.themeColor).success ? draft.themeColor : DEFAULTS.themeColor,
    position: draft.position,
    strings: resolveWidgetTexts(language, ownStrings(draft)),
    questionMaxLength: VISITOR_QUESTION_MAX,
    sendPageUrl: draft.sendPageUrl,
  };
}

/** A field's problems, by the form's field keys: `name`, `origins`, `strings.send`, `limits.dailyQuestions`, … */
type FieldErrors = Record<string, string>;

const FRIENDLY: Record<string, string> = {
  name: 'Give the widget a name.',
  knowledgeBaseIds: 'Choose at least one knowledge base: the widget answers from these.',
  origins: "Add at least one origin: the address of the shop's site, e.g. https://shop.example.",
};

/** Where a problem the contract (or the server) names goes in the form, and what it says there. */
function place(path: ReadonlyArray<PropertyKey>, message: string, origins: string[], errors: FieldErrors): void {
  const [field, index] = path.map(String);
  if (field === 'allowedOrigins') {
    const line = index === undefined ? undefined : origins[Number(index)];
    errors.origins ??= line === undefined ? FRIENDLY.origins! : `"${line}": ${message}`;
  } else if (field === 'strings' || field === 'limits' || field === 'starterQuestions') {
    errors[index === undefined ? field : `${field}.${index}`] ??= message;
  } else if (field) {
    errors[field] ??= (field === 'name' || field === 'knowledgeBaseIds') && index === undefined ? FRIENDLY[field]! : message;
  }
}

function problemsOf(draft: WidgetDraft): FieldErrors {
  const errors: FieldErrors = {};
  const result = widgetInputSchema.safeParse(inputOf(draft));
  if (!result.success) for (const issue of (result.error as z.ZodError).issues) place(issue.path, issue.message, originLines(draft.origins), errors);
  return errors;
}

/** The origins are checked line by line as they are typed, with the rule the server applies. */
function originProblem(text: string): string | undefined {
  for (const line of originLines(text)) {
    const checked = allowedOriginSchema.safeParse(line);
    if (!checked.success) return `"${line}": ${checked.error.issues[0]!.message}`;
  }
  return undefined;
}

function FieldError({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <p className="error-text" id={id} role="alert">
      {error}
    </p>
  ) : null;
}

const WIDGET_PICKER_TEXT: KnowledgeBasePickerText = {
  idPrefix: 'widget',
  addLabel: 'Add a knowledge base by name',
  unknownHint: 'no items yet: the widget finds nothing there until some are pushed',
  emptyHint: 'No knowledge base exists yet: push or import items first.',
};

export type WidgetEditorProps = {
  widget: Widget | null;
  knowledgeBases: string[];
  readOnly: boolean;
  submitLabel: string;
  /** Sends the input; an ErrorAnswer's details are shown beside their fields. */
  save: (input: WidgetInput) => Promise<void>;
  onCancel: () => void;
};

/** Every setting of a widget, with the widget itself beside it redrawn as they change. */
export function WidgetEditor({ widget, knowledgeBases, readOnly, submitLabel, save, onCancel }: WidgetEditorProps) {
  const [draft, setDraft] = useState<WidgetDraft>(() => draftOf(widget));
  // Problems show once the form was submitted, then follow every change, so a fixed field clears.
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  // Disabling or enabling from the page takes effect at once: the form follows it.
  const enabled = widget?.enabled;
  useEffect(() => {
    if (enabled !== undefined) setDraft((d) => ({ ...d, enabled }));
  }, [enabled]);
  const liveOrigin = originProblem(draft.origins);
  const errors: FieldErrors = { ...(submitted ? problemsOf(draft) : {}), ...serverErrors, ...(liveOrigin ? { origins: liveOrigin } : {}) };

  const change = (patch: Partial<WidgetDraft>, ...fields: string[]) => {
    setDraft((d) => ({ ...d, ...patch }));
    setSaved(false);
    setServerErrors((current) => Object.fromEntries(Object.entries(current).filter(([key]) => !fields.some((f) => key === f || key.startsWith(`${f}.`)))));
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    setServerErrors({});
    if (Object.keys(problemsOf(draft)).length > 0) return;
    setBusy(true);
    setError(null);
    try {
      await save(inputOf(draft));
      setSaved(true);
    } catch (e) {
      const byField: FieldErrors = {};
      for (const detail of e instanceof ErrorAnswer ? e.details : []) place(detail.path.split('.'), detail.message, originLines(draft.origins), byField);
      if (Object.keys(byField).length > 0) setServerErrors(byField);
      else setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const described = (field: string) => (errors[field] ? { 'aria-invalid': true, 'aria-describedby': `widget-${field.replace('.', '-')}-error` } : {});
  const fieldError = (field: string) => <FieldError id={`widget-${field.replace('.', '-')}-error`} error={errors[field]} />;

  return (
    <div className="widget-editor">
      <form className="form panel widget-form" onSubmit={(e) => void submit(e)} noValidate aria-label="Widget settings">
        <fieldset className="plain" disabled={readOnly}>
          <div className="field">
            <label htmlFor="widget-name">Name</label>
            <input id="widget-name" maxLength={100} placeholder="e.g. Shop assistant" value={draft.name} onChange={(e) => change({ name: e.target.value }, 'name')} {...described('name')} />
            <p className="hint">For you only; visitors never see it.</p>
            {fieldError('name')}
          </div>

          <fieldset aria-describedby={errors.knowledgeBaseIds ? 'widget-knowledgeBaseIds-error' : undefined}>
            <legend>Knowledge bases it answers from</legend>
            <KnowledgeBasePicker text={WIDGET_PICKER_TEXT} known={knowledgeBases} selected={draft.knowledgeBaseIds} onChange={(ids) => change({ knowledgeBaseIds: ids }, 'knowledgeBaseIds')} />
            {fieldError('knowledgeBaseIds')}
          </fieldset>

          <div className="field">
            <label htmlFor="widget-origins">Allowed origins, one per line</label>
            <textarea
              id="widget-origins"
              rows={3}
              spellCheck={false}
              placeholder={'https://shop.example\nhttps://*.shop.example'}
              value={draft.origins}
              onChange={(e) => change({ origins: e.target.value }, 'origins')}
              {...described('origins')}
            />
            <p className="hint">
              The sites whose pages may show the widget: scheme, host and port as in the browser's address bar, without a path.{' '}
              <code>https://*.example.com</code> allows every subdomain (not <code>example.com</code> itself).
            </p>
            {fieldError('origins')}
          </div>

          <div className="field">
            <label htmlFor="widget-language">Language</label>
            <select
              id="widget-language"
              value={draft.language}
              onChange={(e) => {
                const language = e.target.value as WidgetLanguage | '';
                const to = language || 'en';
                // A greeting or fallback message left as built in follows the language; the owner's own stays.
                change(
                  { language, greeting: messageIn(to, 'greeting', draft.greeting), fallbackMessage: messageIn(to, 'fallbackMessage', draft.fallbackMessage) },
                  'language',
                );
              }}
              {...described('language')}
            >
              {!widget && <option value="">The knowledge base's language</option>}
              {WIDGET_LANGUAGES.map((language) => (
                <option key={language} value={language}>
                  {WIDGET_LANGUAGE_NAMES[language]}
                </option>
              ))}
            </select>
            <p className="hint">
              The language of the widget's buttons, messages and labels. A greeting or fallback message left as built in follows it.
              The assistant answers from your content in the language it is written in: visitors find answers when they ask in that
              language.
            </p>
            {fieldError('language')}
          </div>

          <div className="field">
            <label htmlFor="widget-greeting">Greeting</label>
            <textarea id="widget-greeting" rows={2} maxLength={500} value={draft.greeting} onChange={(e) => change({ greeting: e.target.value }, 'greeting')} {...described('greeting')} />
            {fieldError('greeting')}
          </div>

          <fieldset>
            <legend>Starter questions (up to {MAX_STARTERS})</legend>
            <p className="hint">Shown as buttons before the first question.</p>
            <div className="widget-grid">
              {Array.from({ length: MAX_STARTERS }, (_, i) => (
                <div className="field" key={i}>
                  <input
                    aria-label={`Starter question ${i + 1}`}
                    maxLength={120}
                    value={draft.starterQuestions[i] ?? ''}
                    onChange={(e) => {
                      const next = Array.from({ length: MAX_STARTERS }, (_, j) => (j === i ? e.target.value : (draft.starterQuestions[j] ?? '')));
                      change({ starterQuestions: next }, 'starterQuestions');
                    }}
                  />
                </div>
              ))}
            </div>
            {Object.entries(errors)
              .filter(([key]) => key.startsWith('starterQuestions'))
              .map(([key, message]) => (
                <FieldError key={key} id={`widget-${key.replace('.', '-')}-error`} error={message} />
              ))}
          </fieldset>

          <div className="field">
            <label htmlFor="widget-fallback">Fallback message</label>
            <textarea
              id="widget-fallback"
              rows={2}
              maxLength={500}
              value={draft.fallbackMessage}
              onChange={(e) => change({ fallbackMessage: e.target.value }, 'fallbackMessage')}
              {...described('fallbackMessage')}
            />
            <p className="hint">Shown when the knowledge bases do not hold the answer: say how to reach you.</p>
            {fieldError('fallbackMessage')}
          </div>

          <div className="field">
            <label htmlFor="widget-string-handoffConsent">{STRING_LABELS.handoffConsent}</label>
            <textarea
              id="widget-string-handoffConsent"
              rows={2}
              maxLength={500}
              value={draft.strings.handoffConsent ?? ''}
              placeholder={WIDGET_TEXTS[draft.language || 'en'].handoffConsent}
              // One line, as every text of the widget is: a line break typed or pasted becomes a space.
              onChange={(e) => change({ strings: { ...draft.strings, handoffConsent: e.target.value.replace(/\s*\n\s*/g, ' ') } }, 'strings.handoffConsent')}
              {...described('strings.handoffConsent')}
            />
            <p className="hint">What a visitor ticks before leaving a question for you with an e-mail address or phone number (they arrive in the Inbox). Empty: the built-in wording of the widget's language, shown in grey.</p>
            {fieldError('strings.handoffConsent')}
          </div>

          <div className="widget-look">
            <div className="field">
              <label htmlFor="widget-color">Theme colour</label>
              <div className="color-field">
                <input
                  type="color"
                  aria-label="Pick the theme colour"
                  value={previewConfigOf(draft, null).themeColor.toLowerCase()}
                  onChange={(e) => change({ themeColor: e.target.value }, 'themeColor')}
                />
                <input id="widget-color" maxLength={7} spellCheck={false} value={draft.themeColor} onChange={(e) => change({ themeColor: e.target.value.trim() }, 'themeColor')} {...described('themeColor')} />
              </div>
              {fieldError('themeColor')}
            </div>
            <fieldset className="plain">
              <legend className="as-label">Position</legend>
              <div className="segmented">
                {WIDGET_POSITIONS.map((position) => (
                  <label key={position} className="radio">
                    <input type="radio" name="widget-position" checked={draft.position === position} onChange={() => change({ position }, 'position')} />
                    {position === 'bottom-right' ? 'Bottom right' : 'Bottom left'}
                  </label>
                ))}
              </div>
            </fieldset>
          </div>

          <details className="widget-texts">
            <summary>Texts</summary>
            <p className="hint">Empty fields use the built-in text of the widget's language, shown in grey. Plain text: it is shown as written.</p>
            <div className="widget-grid">
              {(Object.keys(STRING_LABELS) as StringKey[]).filter((key) => key !== 'handoffConsent').map((key) => (
                <div className="field" key={key}>
                  <label htmlFor={`widget-string-${key}`}>{STRING_LABELS[key]}</label>
                  <input
                    id={`widget-string-${key}`}
                    placeholder={WIDGET_TEXTS[draft.language || 'en'][key]}
                    value={draft.strings[key] ?? ''}
                    onChange={(e) => change({ strings: { ...draft.strings, [key]: e.target.value } }, `strings.${key}`)}
                    {...described(`strings.${key}`)}
                  />
                  {fieldError(`strings.${key}`)}
                </div>
              ))}
            </div>
          </details>

          <fieldset>
            <legend>Questions it answers at most</legend>
            <div className="widget-grid">
              {(Object.keys(LIMIT_LABELS) as LimitKey[]).map((key) => (
                <div className="field" key={key}>
                  <label htmlFor={`widget-limit-${key}`}>{LIMIT_LABELS[key]}</label>
                  <input
                    id={`widget-limit-${key}`}
                    type="number"
                    min={1}
                    value={draft.limits[key]}
                    onChange={(e) => change({ limits: { ...draft.limits, [key]: e.target.value } }, `limits.${key}`)}
                    {...described(`limits.${key}`)}
                  />
                  {fieldError(`limits.${key}`)}
                </div>
              ))}
            </div>
            <p className="hint">A visitor who asks more often waits a moment; once the day's questions are used up, the widget says so until midnight UTC.</p>
          </fieldset>

          <label className="check">
            <input type="checkbox" checked={draft.sendPageUrl} onChange={(e) => change({ sendPageUrl: e.target.checked }, 'sendPageUrl')} />
            <span>
              Send the page's address <span className="hint">so "how long is this?" is answered about the product the visitor is looking at</span>
            </span>
          </label>
          <label className="check">
            <input type="checkbox" checked={draft.enabled} onChange={(e) => change({ enabled: e.target.checked }, 'enabled')} />
            <span>
              Enabled <span className="hint">a disabled widget shows nothing on the shop's pages; its settings are kept</span>
            </span>
          </label>
        </fieldset>
        <ErrorNote error={error} />
        {saved ? (
          <p className="valid-note" role="status">
            Saved.
          </p>
        ) : null}
        {readOnly ? null : (
          <div className="actions">
            <button type="button" className="secondary" onClick={onCancel}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={busy}>
              {submitLabel}
            </button>
          </div>
        )}
      </form>
      <WidgetPreview config={previewConfigOf(draft, widget?.id ?? null)} />
    </div>
  );
}
