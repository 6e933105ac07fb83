import { z } from 'zod';
import { askContextSchema, type AskSuggestion } from './ask.ts';
import { passageLocation } from './knowledge.ts';
import { BIDI_CONTROLS, BIDI_CONTROLS_MESSAGE, identifier, safeText } from './text-rules.ts';
import { WIDGET_LANGUAGES, WIDGET_MESSAGES } from './widget-texts.ts';
import { VISITOR_CONVERSATION_MAX_TURNS, VISITOR_QUESTION_MAX, VISITOR_TURN_MAX } from './visitor-limits.ts';

/**
 * The visitor assistant: a chat widget that a shop's own website embeds with one line,
 * `<script src="https://<where LocalIQ is reached>/widget.js" data-widget="wgt_…" async></script>`.
 *
 * A widget's id is public (it is in the page's source, like a publishable key); what protects the
 * knowledge base is that a visitor can only ask questions, only from an allowed origin, within
 * the widget's limits. The admin side manages widgets (Owner and Admin); the public side
 * (`/v1/widget/...`) is all a visitor's browser ever reaches.
 */

export const WIDGET_ID_PATTERN = /^wgt_[A-Za-z0-9]{20}$/;
export const widgetIdSchema = z.string().regex(WIDGET_ID_PATTERN, 'a widget id looks like wgt_ followed by 20 letters and digits');


/**
 * One text of the widget's interface as an owner may write it: plain text on one line, rendered
 * as text (never as HTML), without control characters or the invisible bidirectional controls
 * that would make it display as something else.
 */
function widgetText(max: number) {
  return safeText(max)
    .min(1)
    .refine((s) => !/\p{Cc}/u.test(s), 'must be one line of plain text, without control characters')
    .refine((s) => !BIDI_CONTROLS.test(s), BIDI_CONTROLS_MESSAGE);
}

/**
 * The texts of the widget's interface, so a German shop has German buttons: each language's
 * built-in set is in widget-texts.ts, and a widget's `strings` replace single entries of it.
 */
export const widgetStringsSchema = z.strictObject({
  launcherLabel: widgetText(60),
  title: widgetText(60),
  placeholder: widgetText(80),
  /** The question box's name for screen readers (the placeholder is a hint, not a label). */
  inputLabel: widgetText(60),
  send: widgetText(30),
  close: widgetText(30),
  thinking: widgetText(80),
  busy: widgetText(200),
  rateLimited: widgetText(200),
  unreachable: widgetText(200),
  sources: widgetText(40),
  helpful: widgetText(40),
  notHelpful: widgetText(40),
  thanks: widgetText(80),
  newConversation: widgetText(40),
  /** Shown above an answer to a question the assistant read with a typo corrected, before the question as read. */
  showingResultsFor: widgetText(60),
  /** Before the page number of a source from a PDF: "Price list, page 2". */
  page: widgetText(30),
  /** What a screen reader calls the product card: "Product: Trail shoe". */
  product: widgetText(40),
  /** The hosted chat page in a browser without JavaScript. */
  noScript: widgetText(120),
  /**
   * Leaving a question for the shop's team (a handoff): the offer (a button under an unanswered
   * question and in the panel's head, and the form's name), the form and what it says back.
   */
  handoffOffer: widgetText(40),
  handoffOfferHint: widgetText(160),
  handoffQuestion: widgetText(60),
  handoffName: widgetText(60),
  handoffEmail: widgetText(40),
  handoffPhone: widgetText(40),
  handoffContactHint: widgetText(160),
  /** The consent the visitor ticks before the shop may contact them: the owner's own wording goes here. */
  handoffConsent: widgetText(500),
  handoffSend: widgetText(40),
  handoffCancel: widgetText(30),
  handoffSent: widgetText(200),
  handoffNeedContact: widgetText(160),
  handoffNeedConsent: widgetText(160),
  handoffInvalidEmail: widgetText(160),
  handoffInvalidContact: widgetText(160),
  handoffTooMany: widgetText(200),
  handoffFailed: widgetText(200),
  /** Before the team's reply, `{question}` standing for the question it answers. */
  handoffReplied: widgetText(80),
  /** Above the owner's curated questions offered after an unanswered question, each a button that asks it. */
  didYouMean: widgetText(60),
});
export type WidgetStrings = z.infer<typeof widgetStringsSchema>;
export type WidgetStringKey = keyof WidgetStrings;

const widgetLanguageSchema = z
  .enum(WIDGET_LANGUAGES)
  .describe("The language of the widget's built-in texts (ISO 639-1); the widget's own `strings` replace single ones of them.");

/**
 * An allowed origin: scheme, host and port exactly as the browser sends them in `Origin`
 * (`https://shop.example`, `http://localhost:8080`), or every subdomain of a host
 * (`https://*.example.com`, which does not match `https://example.com` itself).
 */
export const allowedOriginSchema = z
  .string()
  .max(200)
  .regex(
    /^https?:\/\/(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/,
    'an origin is a scheme, a host and an optional port, e.g. https://shop.example or https://*.example.com, in lower case and without a path',
  );

export const WIDGET_POSITIONS = ['bottom-right', 'bottom-left'] as const;

export const widgetLimitsSchema = z.strictObject({
  visitorQuestionsPerMinute: z.number().int().min(1).max(600).default(6),
  widgetQuestionsPerMinute: z.number().int().min(1).max(6_000).default(60),
  dailyQuestions: z.number().int().min(1).max(1_000_000).default(2_000),
});
export type WidgetLimits = z.infer<typeof widgetLimitsSchema>;

/** What an Owner or Admin sets when creating a widget; everything but name, base and origin has a default. */
export const widgetInputSchema = z
  .strictObject({
    name: safeText(100).trim().min(1),
    knowledgeBaseIds: z.array(identifier()).min(1).max(10),
    allowedOrigins: z.array(allowedOriginSchema).min(1).max(20),
    language: widgetLanguageSchema
      .optional()
      .describe(
        "The language of the widget's built-in texts (ISO 639-1). Left out: the first knowledge base's language when it is " +
          'one of these, else English.',
      ),
    greeting: safeText(500)
      .default(WIDGET_MESSAGES.en.greeting)
      .describe("Left as a built-in greeting (of any language), it is the widget's language's built-in greeting."),
    starterQuestions: z.array(safeText(120).trim().min(1)).max(4).default([]),
    fallbackMessage: safeText(500)
      .default(WIDGET_MESSAGES.en.fallbackMessage)
      .describe("Left as a built-in fallback message (of any language), it is the widget's language's built-in one."),
    themeColor: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, 'a colour like #1a73e8')
      .default('#1f5fbf'),
    position: z.enum(WIDGET_POSITIONS).default('bottom-right'),
    strings: widgetStringsSchema.partial().default({}),
    limits: widgetLimitsSchema.default({ visitorQuestionsPerMinute: 6, widgetQuestionsPerMinute: 60, dailyQuestions: 2_000 }),
    sendPageUrl: z
      .boolean()
      .default(true)
      .describe("Whether the widget sends the address of the page a visitor asks on, so \"how long is this?\" is answered about the page's item."),
    enabled: z.boolean().default(true),
  })
  // Not "WidgetInput": the OpenAPI generator names the input form of the Widget schema so.
  .meta({ id: 'WidgetCreate' });
export type WidgetInput = z.input<typeof widgetInputSchema>;

const input = widgetInputSchema.shape;
const limit = widgetLimitsSchema.shape;

/**
 * An update changes only the fields it names, and of `limits` only the limits it names: unlike
 * the input, it fills in no defaults (a partial of the input would, and reset every field an
 * update leaves out). `strings` replaces the widget's own texts as a whole.
 */
export const widgetUpdateSchema = z
  .strictObject({
    name: input.name,
    knowledgeBaseIds: input.knowledgeBaseIds,
    allowedOrigins: input.allowedOrigins,
    language: widgetLanguageSchema,
    greeting: input.greeting.unwrap(),
    starterQuestions: input.starterQuestions.unwrap(),
    fallbackMessage: input.fallbackMessage.unwrap(),
    themeColor: input.themeColor.unwrap(),
    position: input.position.unwrap(),
    strings: input.strings.unwrap(),
    limits: z.strictObject({
      visitorQuestionsPerMinute: limit.visitorQuestionsPerMinute.unwrap().optional(),
      widgetQuestionsPerMinute: limit.widgetQuestionsPerMinute.unwrap().optional(),
      dailyQuestions: limit.dailyQuestions.unwrap().optional(),
    }),
    sendPageUrl: input.sendPageUrl.unwrap(),
    enabled: input.enabled.unwrap(),
  })
  .partial()
  .meta({ id: 'WidgetUpdate' });
export type WidgetUpdate = z.input<typeof widgetUpdateSchema>;

export const widgetSchema = z
  .strictObject({
    id: widgetIdSchema,
    name: z.string(),
    knowledgeBaseIds: z.array(z.string()),
    allowedOrigins: z.array(z.string()),
    language: widgetLanguageSchema,
    greeting: z.string(),
    starterQuestions: z.array(z.string()),
    fallbackMessage: z.string(),
    themeColor: z.string(),
    position: z.enum(WIDGET_POSITIONS),
    strings: widgetStringsSchema.partial().describe("The widget's own texts, each in place of its language's built-in one."),
    limits: widgetLimitsSchema,
    sendPageUrl: z.boolean(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Widget' });
export type Widget = z.infer<typeof widgetSchema>;

// ---------------------------------------------------------------------------------------------
// The public side, `/v1/widget/{widgetId}/...`: what a visitor's browser may call, nothing more.
// Every request's `Origin` must be one of the widget's allowed origins (else 403
// `origin_not_allowed`), and the widget must exist and be enabled (else 404 `widget_not_found`:
// a disabled widget looks like no widget to a visitor).
// ---------------------------------------------------------------------------------------------

/** `GET /v1/widget/{widgetId}/config`: what the widget needs to draw itself. */
export const publicWidgetConfigSchema = z
  .strictObject({
    id: z.string(),
    language: widgetLanguageSchema.describe('The language of the texts: the widget sets it as the `lang` of its root.'),
    greeting: z.string(),
    starterQuestions: z.array(z.string()),
    fallbackMessage: z.string(),
    themeColor: z.string(),
    position: z.enum(WIDGET_POSITIONS),
    strings: widgetStringsSchema.describe("Every text of the interface: the language's built-in set with the widget's own texts in their place."),
    questionMaxLength: z.number().int(),
    sendPageUrl: z.boolean().describe("Whether the widget sends the page's address with each question (`context.url`)."),
  })
  .meta({ id: 'PublicWidgetConfig' });
export type PublicWidgetConfig = z.infer<typeof publicWidgetConfigSchema>;

/**
 * `POST /v1/widget/{widgetId}/sessions` (empty body): a visitor session, a short-lived signed
 * token bound to the widget and the origin. Sent back as `Authorization: Bearer <token>`; no
 * cookies, so there is nothing a cross-site request could ride on.
 */
export const visitorSessionSchema = z
  .strictObject({
    token: z.string(),
    expiresAt: z.string().describe('When the token stops working; the widget then starts a new session.'),
  })
  .meta({ id: 'VisitorSession' });
export type VisitorSession = z.infer<typeof visitorSessionSchema>;

/** `POST /v1/widget/{widgetId}/ask`: answered as Server-Sent Events (VisitorAskEvent). */
export const visitorAskRequestSchema = z
  .strictObject({
    question: safeText(VISITOR_QUESTION_MAX).trim().min(1),
    conversation: z
      .array(z.strictObject({ role: z.enum(['user', 'assistant']), content: safeText(VISITOR_TURN_MAX).min(1) }))
      .max(VISITOR_CONVERSATION_MAX_TURNS)
      .default([])
      .describe("Accepted and not read: a follow-up question is read with the session's stored turns."),
    context: askContextSchema
      .optional()
      .describe(
        "The page the visitor is on: its address (sent unless the widget's `sendPageUrl` is off) and the item it shows " +
          '(`data-external-id` or `LocalIQ.setContext({ externalId })`). "Is it waterproof?" is answered about that item.',
      ),
  })
  .meta({ id: 'VisitorAskRequest' });
export type VisitorAskRequest = z.input<typeof visitorAskRequestSchema>;

/** A source as a visitor sees it: a title, and a link only when the item has an http(s) URL. */
/**
 * What a visitor sees of a citation: its number, its title, its link (http(s) only, else null),
 * and for a passage of an uploaded file where in it the passage is (its PDF page or its headings),
 * which the widget shows after the title. Nothing else of the item (no ids, no passage).
 */
export const visitorCitationSchema = z.strictObject({
  number: z.number().int(),
  title: z.string(),
  url: z.string().nullable(),
  ...passageLocation,
});
export type VisitorCitation = z.infer<typeof visitorCitationSchema>;

/**
 * The product an answer is about, for the widget to show beside the answering line: its title,
 * its price when the item's `sourceData` holds one, its link when its `data.url` is http(s).
 */
export const visitorProductSchema = z
  .strictObject({
    title: z.string(),
    price: z.string().nullable(),
    url: z.string().nullable(),
  })
  .meta({ id: 'VisitorProduct' });
export type VisitorProduct = z.infer<typeof visitorProductSchema>;

/**
 * The events of a visitor's answer, in order: `answer` (text deltas, plain text: the widget never
 * renders it as HTML), `citations`, then `done` (the whole answer; `answered` false means the
 * knowledge base does not hold it and the widget shows the fallback message), or `error` instead.
 */
export type VisitorAskEvent =
  | { type: 'answer'; text: string }
  | { type: 'citations'; citations: VisitorCitation[] }
  | {
      type: 'done';
      answerId: string;
      answered: boolean;
      answer: string;
      citations: VisitorCitation[];
      /** The question as the assistant read it, when it read a word of it as another (a typo); answered only. */
      correctedQuery?: string;
      /** The product the answer is about (a `PRODUCT` item answered from); answered only. */
      product?: VisitorProduct;
      /** "owner": the answer is one of the owner's curated answers, given as written. */
      source?: 'owner';
      /** Not answered, but these curated questions are close ("Did you mean …?"): asking one gets its answer. */
      suggestions?: AskSuggestion[];
    }
  | { type: 'error'; code: string; message: string };

/** `POST /v1/widget/{widgetId}/feedback`: thumbs up or down on one answer of this session (204). */
export const visitorFeedbackSchema = z
  .strictObject({
    answerId: z.string().min(1).max(64),
    rating: z.enum(['up', 'down']),
  })
  .meta({ id: 'VisitorFeedback' });
export type VisitorFeedback = z.infer<typeof visitorFeedbackSchema>;
