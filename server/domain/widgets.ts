import { VISITOR_QUESTION_MAX } from '../../common/contract/visitor-limits.ts';
import {
  type PublicWidgetConfig,
  type WIDGET_POSITIONS,
  type WidgetInput,
  type WidgetLimits,
  type WidgetStrings,
  type WidgetUpdate,
  widgetInputSchema,
  widgetUpdateSchema,
} from '../../common/contract/widget.ts';
import { isWidgetLanguage, messageIn, resolveWidgetTexts, type WidgetLanguage } from '../../common/contract/widget-texts.ts';
import { randomBase62 } from './api-keys.ts';

/** What a widget is, apart from its id, name, state and times: stored as one JSON document. */
export type WidgetSettings = {
  knowledgeBaseIds: string[];
  allowedOrigins: string[];
  /** The language of its built-in texts (common/contract/widget-texts.ts). */
  language: WidgetLanguage;
  greeting: string;
  starterQuestions: string[];
  fallbackMessage: string;
  themeColor: string;
  position: (typeof WIDGET_POSITIONS)[number];
  strings: Partial<WidgetStrings>;
  limits: WidgetLimits;
  /** Whether the widget sends the page's address with each question (the ask's `context.url`). */
  sendPageUrl: boolean;
};

export type WidgetRecord = WidgetSettings & {
  id: string;
  name: string;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
};

/** Where widgets are kept (server/storage/widget-repo.ts). A deleted widget is never returned. */
export interface WidgetRepository {
  insert(widget: WidgetRecord): void;
  get(id: string): WidgetRecord | null;
  list(): WidgetRecord[];
  /** Replaces the stored widget; false when there is none (or it was deleted). */
  update(widget: WidgetRecord): boolean;
  markDeleted(id: string, at: number): boolean;
}

const WIDGET_ID_PREFIX = 'wgt_';

function newWidgetId(): string {
  return `${WIDGET_ID_PREFIX}${randomBase62(20)}`;
}

/**
 * The visitor assistant's widgets: an Owner or Admin creates, changes, disables and deletes them
 * (the admin API and the CLI call this); the public side reads `forVisitors`. Inputs are parsed
 * with the contract's schemas here, so every caller gets the same defaults and the same refusals
 * (a ZodError for invalid input).
 */
export class WidgetService {
  constructor(
    private readonly repo: WidgetRepository,
    private readonly clock: () => number = Date.now,
    /** A knowledge base's language (its keyword index's), which a new widget speaks unless told otherwise. */
    private readonly knowledgeBaseLanguage: (knowledgeBaseId: string) => string = () => 'en',
  ) {}

  create(input: WidgetInput): WidgetRecord {
    const { name, enabled, language: requested, ...settings } = widgetInputSchema.parse(input);
    const now = this.clock();
    const language = requested ?? this.defaultLanguage(settings.knowledgeBaseIds);
    const widget: WidgetRecord = {
      id: newWidgetId(),
      name,
      enabled,
      ...settings,
      language,
      ...messagesIn(language, settings),
      knowledgeBaseIds: unique(settings.knowledgeBaseIds),
      allowedOrigins: unique(settings.allowedOrigins),
      createdAt: now,
      updatedAt: now,
    };
    this.repo.insert(widget);
    return widget;
  }

  get(id: string): WidgetRecord | null {
    return this.repo.get(id);
  }

  list(): WidgetRecord[] {
    return this.repo.list();
  }

  /** Changes the fields the update names (limits one by one); null when there is no such widget. */
  update(id: string, update: WidgetUpdate): WidgetRecord | null {
    const changes = widgetUpdateSchema.parse(update);
    const current = this.repo.get(id);
    if (!current) return null;
    const { limits, knowledgeBaseIds, allowedOrigins, ...rest } = changes;
    const next: WidgetRecord = {
      ...current,
      ...definedOnly(rest),
      ...(knowledgeBaseIds ? { knowledgeBaseIds: unique(knowledgeBaseIds) } : {}),
      ...(allowedOrigins ? { allowedOrigins: unique(allowedOrigins) } : {}),
      limits: { ...current.limits, ...definedOnly(limits ?? {}) },
      updatedAt: this.clock(),
    };
    Object.assign(next, messagesIn(next.language, next));
    return this.repo.update(next) ? next : null;
  }

  /** The first knowledge base's language when a widget can speak it, else English. */
  private defaultLanguage(knowledgeBaseIds: string[]): WidgetLanguage {
    const language = knowledgeBaseIds[0] ? this.knowledgeBaseLanguage(knowledgeBaseIds[0]) : 'en';
    return isWidgetLanguage(language) ? language : 'en';
  }

  /** Visitors see a disabled widget as no widget at all; its settings and conversations are kept. */
  disable(id: string): WidgetRecord | null {
    return this.update(id, { enabled: false });
  }

  enable(id: string): WidgetRecord | null {
    return this.update(id, { enabled: true });
  }

  /** Deleted for good as far as anyone can see; its conversations stay until retention removes them. */
  delete(id: string): boolean {
    return this.repo.markDeleted(id, this.clock());
  }

  /** The widget a visitor's request names, when it exists and is enabled. */
  forVisitors(id: string): WidgetRecord | null {
    const widget = this.repo.get(id);
    return widget?.enabled ? widget : null;
  }
}

/** A widget's greeting and fallback message: built-in ones become its language's (widget-texts.ts, messageIn). */
function messagesIn(language: WidgetLanguage, messages: { greeting: string; fallbackMessage: string }) {
  return {
    greeting: messageIn(language, 'greeting', messages.greeting),
    fallbackMessage: messageIn(language, 'fallbackMessage', messages.fallbackMessage),
  };
}

/**
 * What the widget needs to draw itself: every text resolved (its language's set under its own
 * texts), so the script carries no catalogue; nothing about its limits or bases. The whole set is
 * under 2 KB of JSON, fetched once per page view.
 */
export function publicWidgetConfig(widget: WidgetRecord): PublicWidgetConfig {
  return {
    id: widget.id,
    language: widget.language,
    greeting: widget.greeting,
    starterQuestions: widget.starterQuestions,
    fallbackMessage: widget.fallbackMessage,
    themeColor: widget.themeColor,
    position: widget.position,
    strings: resolveWidgetTexts(widget.language, widget.strings),
    questionMaxLength: VISITOR_QUESTION_MAX,
    sendPageUrl: widget.sendPageUrl,
  };
}

/** A listener's address as configured (LOCALIQ_HOST/PORT, LOCALIQ_PUBLIC_HOST/PORT). */
export type Listener = { host: string; port: number };

/** Addresses that mean "every interface": a browser cannot use them as a host name. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Where visitors' browsers fetch the widget from (scheme, host and port, no trailing slash): the
 * public listener when LocalIQ runs one, else the main listener as `reachedAt` names it (the
 * dashboard's own address, or the configured one from the command line). A listener on every
 * interface is named by `reachedAt`'s host, which is how this machine is known on the network.
 * Behind a shop's reverse proxy, the owner writes the proxy's address in its place.
 */
export function widgetBaseUrl(publicListener: Listener | null, reachedAt: URL): string {
  return publicListener ? listenerUrl(publicListener, reachedAt.hostname) : reachedAt.origin;
}

/** A listener's address as a browser writes it; one on every interface is named by `machineName`. */
export function listenerUrl(listener: Listener, machineName: string): string {
  const host = EVERY_INTERFACE.has(listener.host) ? machineName : listener.host;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${listener.port}`;
}

/** The one line a shop pastes into its pages. */
export function widgetSnippet(baseUrl: string, widgetId: string): string {
  return `<script src="${baseUrl}/widget.js" data-widget="${widgetId}" async></script>`;
}

/** The widget's hosted chat page, for a link, a kiosk or a QR code. */
export function hostedPageUrl(baseUrl: string, widgetId: string): string {
  return `${baseUrl}/w/${widgetId}`;
}

/** The start of the current day in UTC, the day a widget's daily limit counts. */
export function startOfUtcDay(now: number): number {
  return now - (now % 86_400_000);
}

const unique = (values: string[]) => [...new Set(values)];

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
