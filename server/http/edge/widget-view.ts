import type { AdminWidget } from '../../../common/contract/admin.ts';
import { hostedPageUrl, type WidgetRecord, widgetSnippet } from '../../domain/widgets.ts';
import { isoTime } from './iso-time.ts';

/**
 * A widget as the admin API and `localiq widgets … --json` show it: its settings, the snippet and
 * hosted page at `baseUrl` (where visitors' browsers reach LocalIQ), and its questions today.
 */
export function toWidgetView(widget: WidgetRecord, baseUrl: string, questionsToday: number): AdminWidget {
  return {
    id: widget.id,
    name: widget.name,
    knowledgeBaseIds: widget.knowledgeBaseIds,
    allowedOrigins: widget.allowedOrigins,
    language: widget.language,
    greeting: widget.greeting,
    starterQuestions: widget.starterQuestions,
    fallbackMessage: widget.fallbackMessage,
    themeColor: widget.themeColor,
    position: widget.position,
    strings: widget.strings,
    limits: widget.limits,
    sendPageUrl: widget.sendPageUrl,
    enabled: widget.enabled,
    createdAt: isoTime(widget.createdAt),
    updatedAt: isoTime(widget.updatedAt),
    snippet: widgetSnippet(baseUrl, widget.id),
    pageUrl: hostedPageUrl(baseUrl, widget.id),
    questionsToday,
  };
}
