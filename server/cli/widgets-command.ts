import os from 'node:os';
import { parseArgs } from 'node:util';
import type { ZodError } from 'zod';
import type { AdminWidget } from '../../common/contract/admin.ts';
import { WIDGET_POSITIONS, type WidgetUpdate, widgetInputSchema, widgetUpdateSchema } from '../../common/contract/widget.ts';
import { isWidgetLanguage, WIDGET_LANGUAGES } from '../../common/contract/widget-texts.ts';
import type { Config } from '../config.ts';
import { type Listener, listenerUrl, startOfUtcDay, type WidgetRecord, widgetBaseUrl } from '../domain/widgets.ts';
import { toWidgetView } from '../http/edge/widget-view.ts';
import type { Services } from '../services.ts';

export const WIDGETS_USAGE = `  widgets create --name N --knowledge-base KB [--knowledge-base KB2] --origin https://shop.example [--origin …]
        [--language en|de|fr|es|it|nl] [--greeting G] [--fallback F] [--starter Q …] [--theme-color #1f5fbf]
        [--position bottom-right|bottom-left] [--text KEY=TEXT …] [--daily-limit N] [--page-url on|off] [--json]
                                          create a visitor chat widget and print the line to paste into the shop's pages
  widgets list [--json]                   list widgets with their state, knowledge bases, origins and questions today
  widgets update <id> [--name N] [--knowledge-base KB …] [--origin O …] [--language L] [--greeting G] [--fallback F]
        [--starter Q …] [--theme-color C] [--position P] [--text KEY=TEXT …] [--daily-limit N] [--page-url on|off] [--enable|--disable] [--json]
                                          change only what is named; a repeated option replaces the whole list
                                          (--text: the widget's own texts, e.g. --text send=Absenden; docs/visitor-assistant.md lists the keys)
  widgets disable <id>                    visitors no longer see the widget; its settings are kept
  widgets delete <id>                     delete the widget for good`;

const OPTIONS = {
  name: { type: 'string' },
  'knowledge-base': { type: 'string', multiple: true },
  origin: { type: 'string', multiple: true },
  language: { type: 'string' },
  greeting: { type: 'string' },
  fallback: { type: 'string' },
  starter: { type: 'string', multiple: true },
  'theme-color': { type: 'string' },
  text: { type: 'string', multiple: true },
  position: { type: 'string' },
  'daily-limit': { type: 'string' },
  'page-url': { type: 'string' },
  enable: { type: 'boolean' },
  disable: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const ACTIONS = ['create', 'list', 'update', 'disable', 'delete'];

/** The option that sets each field, so a refusal names what the operator typed. */
const OPTION_OF: Record<string, string> = {
  name: '--name',
  knowledgeBaseIds: '--knowledge-base',
  allowedOrigins: '--origin',
  language: '--language',
  greeting: '--greeting',
  fallbackMessage: '--fallback',
  starterQuestions: '--starter',
  themeColor: '--theme-color',
  position: '--position',
  strings: '--text',
  limits: '--daily-limit',
  sendPageUrl: '--page-url',
};

type Values = ReturnType<typeof parseOptions>['values'];

function parseOptions(args: string[]) {
  return parseArgs({ args, allowPositionals: true, options: OPTIONS });
}

/**
 * Where visitors' browsers reach LocalIQ as seen from this machine's configuration: the public
 * listener when there is one, else the main listener (a listener on every interface is named by
 * this machine's name).
 */
export function configuredWidgetBaseUrl(config: Pick<Config, 'host' | 'port'> & { publicListener?: Listener | null }): string {
  return widgetBaseUrl(config.publicListener ?? null, new URL(listenerUrl(config, os.hostname())));
}

/** The fields the options name, as the contract spells them; absent options are left out. */
function fieldsOf(values: Values, usageError: (message: string) => Error): WidgetUpdate {
  const fields: WidgetUpdate = {};
  if (values.name !== undefined) fields.name = values.name;
  if (values['knowledge-base']) fields.knowledgeBaseIds = values['knowledge-base'];
  if (values.origin) fields.allowedOrigins = values.origin;
  if (values.language !== undefined) {
    if (!isWidgetLanguage(values.language)) throw usageError(`--language takes ${WIDGET_LANGUAGES.join(', ')}.`);
    fields.language = values.language;
  }
  if (values.greeting !== undefined) fields.greeting = values.greeting;
  if (values.fallback !== undefined) fields.fallbackMessage = values.fallback;
  if (values.starter) fields.starterQuestions = values.starter;
  if (values['theme-color'] !== undefined) fields.themeColor = values['theme-color'];
  if (values.position !== undefined) {
    if (!(WIDGET_POSITIONS as readonly string[]).includes(values.position)) throw usageError(`--position takes ${WIDGET_POSITIONS.join(' or ')}.`);
    fields.position = values.position as (typeof WIDGET_POSITIONS)[number];
  }
  if (values.text) {
    const strings: Record<string, string> = {};
    for (const pair of values.text) {
      const at = pair.indexOf('=');
      if (at < 1) throw usageError(`--text takes KEY=TEXT, e.g. --text send=Absenden (got "${pair}").`);
      strings[pair.slice(0, at)] = pair.slice(at + 1);
    }
    fields.strings = strings;
  }
  if (values['daily-limit'] !== undefined) {
    if (!/^\d+$/.test(values['daily-limit'])) throw usageError('--daily-limit takes a whole number of questions a day.');
    fields.limits = { dailyQuestions: Number(values['daily-limit']) };
  }
  if (values['page-url'] !== undefined) {
    if (values['page-url'] !== 'on' && values['page-url'] !== 'off') throw usageError("--page-url takes on (send the visitor's page address with each question) or off.");
    fields.sendPageUrl = values['page-url'] === 'on';
  }
  return fields;
}

/** Every problem of the options at once, each naming its option and the value given. */
function refusal(error: ZodError, fields: WidgetUpdate): string {
  return error.issues
    .map((issue) => {
      const [field, index] = issue.path;
      const option = OPTION_OF[String(field)] ?? String(field);
      const list = fields[field as keyof WidgetUpdate];
      const given = typeof index === 'number' && Array.isArray(list) ? ` "${String(list[index])}"` : '';
      return `${option}${given}: ${issue.message}`;
    })
    .join('\n');
}

function requireId(positionals: string[], action: string, usageError: (message: string) => Error): string {
  const id = positionals[0];
  if (!id) throw usageError(`widgets ${action} needs the widget id (widgets list shows them).`);
  return id;
}

function printWidget(json: boolean, widget: AdminWidget, headline: string): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(widget, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    [
      headline,
      "Paste this line into the shop's pages (if visitors reach LocalIQ through the shop's proxy, write the proxy's address in its place):",
      widget.snippet,
      `Hosted chat page: ${widget.pageUrl}`,
      '',
    ].join('\n'),
  );
}

/** The visitor assistant's widgets from the command line, for servers without a browser at hand. */
export async function widgetsCommand(
  args: string[],
  withServices: <T>(run: (services: Services) => T | Promise<T>) => Promise<T>,
  usageError: (message: string) => Error,
  baseUrl: () => string,
): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseOptions(rest);
  const json = values.json ?? false;
  const view = (services: Services, widget: WidgetRecord) =>
    toWidgetView(widget, baseUrl(), services.visitorConversations.questionsSince(widget.id, startOfUtcDay(Date.now())));
  if (!action || !ACTIONS.includes(action)) throw usageError(`widgets takes ${ACTIONS.join(', ')}.`);
  // An option the action does not take is refused, not ignored: `disable --origin …` changes nothing.
  const named = Object.keys(values).filter((option) => !(action === 'list' && option === 'json'));
  if ((action === 'list' || action === 'disable' || action === 'delete') && named.length > 0) {
    throw usageError(`widgets ${action} takes no ${named.map((option) => `--${option}`).join(', ')}.`);
  }
  const extra = positionals.slice(action === 'create' || action === 'list' ? 0 : 1);
  if (extra.length > 0) throw usageError(`widgets ${action} does not take "${extra.join(' ')}"; quote a value that has spaces.`);
  // A knowledge base exists once an item is pushed to it: a misspelt one would leave the widget answering nothing.
  const warnUnknownBases = (services: Services, widget: AdminWidget) => {
    const unknown = widget.knowledgeBaseIds.filter((id) => !services.reader.hasKnowledgeBase(id));
    if (unknown.length) process.stderr.write(`Note: no item was pushed to ${unknown.map((id) => `"${id}"`).join(', ')} yet; check the spelling.\n`);
  };
  const missing = (id: string) => {
    process.stderr.write(`No widget with id ${id}.\n`);
    return 1;
  };

  switch (action) {
    case 'create': {
      if (values.enable || values.disable) throw usageError('widgets create makes an enabled widget; disable it afterwards with widgets disable.');
      const fields = fieldsOf(values, usageError);
      const needed = [!fields.name && '--name', !fields.knowledgeBaseIds && '--knowledge-base', !fields.allowedOrigins && '--origin'].filter(Boolean);
      if (needed.length) throw usageError(`widgets create needs ${needed.join(', ')}.`);
      const checked = widgetInputSchema.safeParse(fields);
      if (!checked.success) throw usageError(refusal(checked.error, fields));
      return withServices((services) => {
        const widget = view(services, services.widgets.create(checked.data));
        warnUnknownBases(services, widget);
        printWidget(json, widget, `Created widget ${widget.id} "${widget.name}" for ${widget.knowledgeBaseIds.join(', ')}, allowed on ${widget.allowedOrigins.join(', ')}.`);
        return 0;
      });
    }
    case 'list':
      return withServices((services) => {
        const widgets = services.widgets.list().map((widget) => view(services, widget));
        if (json) process.stdout.write(`${JSON.stringify(widgets, null, 2)}\n`);
        else if (widgets.length === 0) process.stdout.write('No widgets yet: create one with localiq widgets create or in the dashboard.\n');
        else {
          const lines = widgets.map((w) =>
            [w.id, w.enabled ? 'on' : 'off', w.name, w.knowledgeBaseIds.join(','), w.allowedOrigins.join(','), `${w.questionsToday}/${w.limits.dailyQuestions}`].join('\t'),
          );
          process.stdout.write(`${['id\tstate\tname\tknowledge bases\torigins\tquestions today', ...lines].join('\n')}\n`);
        }
        return 0;
      });
    case 'update': {
      const id = requireId(positionals, 'update', usageError);
      if (values.enable && values.disable) throw usageError('Give --enable or --disable, not both.');
      const fields = fieldsOf(values, usageError);
      if (values.enable || values.disable) fields.enabled = Boolean(values.enable);
      if (Object.keys(fields).length === 0) throw usageError('widgets update needs at least one change, e.g. --name or --origin.');
      const checked = widgetUpdateSchema.safeParse(fields);
      if (!checked.success) throw usageError(refusal(checked.error, fields));
      return withServices((services) => {
        const updated = services.widgets.update(id, checked.data);
        if (!updated) return missing(id);
        const widget = view(services, updated);
        if (fields.knowledgeBaseIds) warnUnknownBases(services, widget);
        printWidget(json, widget, `Updated widget ${widget.id} "${widget.name}" (${widget.enabled ? 'enabled' : 'disabled'}).`);
        return 0;
      });
    }
    case 'disable': {
      const id = requireId(positionals, 'disable', usageError);
      return withServices(({ widgets }) => {
        if (!widgets.disable(id)) return missing(id);
        process.stdout.write(`Disabled widget ${id}: visitors no longer see it. widgets update ${id} --enable turns it back on.\n`);
        return 0;
      });
    }
    case 'delete': {
      const id = requireId(positionals, 'delete', usageError);
      return withServices(({ widgets }) => {
        if (!widgets.delete(id)) return missing(id);
        process.stdout.write(`Deleted widget ${id}.\n`);
        return 0;
      });
    }
    default:
      throw usageError(`widgets takes ${ACTIONS.join(', ')}.`);
  }
}
