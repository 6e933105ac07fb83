import type { WidgetRecord, WidgetRepository, WidgetSettings } from '../domain/widgets.ts';
import type { Db } from './db.ts';

type WidgetRow = {
  id: string;
  name: string;
  settings: string;
  enabled: number;
  created_at: number;
  updated_at: number;
};

const COLUMNS = 'id, name, settings, enabled, created_at, updated_at';

/** The visitor assistant's widgets; a deleted one keeps its row (deleted_at) and is never returned. */
export class WidgetRepo implements WidgetRepository {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare<[WidgetRow]>(
        `INSERT INTO widgets (${COLUMNS}) VALUES (@id, @name, @settings, @enabled, @created_at, @updated_at)`,
      ),
      get: db.prepare<[string], WidgetRow>(`SELECT ${COLUMNS} FROM widgets WHERE id = ? AND deleted_at IS NULL`),
      list: db.prepare<[], WidgetRow>(`SELECT ${COLUMNS} FROM widgets WHERE deleted_at IS NULL ORDER BY created_at, id`),
      update: db.prepare<[WidgetRow]>(
        `UPDATE widgets SET name = @name, settings = @settings, enabled = @enabled, updated_at = @updated_at
         WHERE id = @id AND deleted_at IS NULL`,
      ),
      markDeleted: db.prepare<[number, string]>('UPDATE widgets SET deleted_at = ?, enabled = 0 WHERE id = ? AND deleted_at IS NULL'),
    };
  }

  insert(widget: WidgetRecord): void {
    this.stmts.insert.run(toRow(widget));
  }

  get(id: string): WidgetRecord | null {
    const row = this.stmts.get.get(id);
    return row ? fromRow(row) : null;
  }

  list(): WidgetRecord[] {
    return this.stmts.list.all().map(fromRow);
  }

  update(widget: WidgetRecord): boolean {
    return this.stmts.update.run(toRow(widget)).changes > 0;
  }

  markDeleted(id: string, at: number): boolean {
    return this.stmts.markDeleted.run(at, id).changes > 0;
  }
}

function toRow(widget: WidgetRecord): WidgetRow {
  const { id, name, enabled, createdAt, updatedAt, ...rest } = widget;
  const settings: WidgetSettings = {
    knowledgeBaseIds: rest.knowledgeBaseIds,
    allowedOrigins: rest.allowedOrigins,
    language: rest.language,
    greeting: rest.greeting,
    starterQuestions: rest.starterQuestions,
    fallbackMessage: rest.fallbackMessage,
    themeColor: rest.themeColor,
    position: rest.position,
    strings: rest.strings,
    limits: rest.limits,
    sendPageUrl: rest.sendPageUrl,
  };
  return { id, name, settings: JSON.stringify(settings), enabled: enabled ? 1 : 0, created_at: createdAt, updated_at: updatedAt };
}

/** A widget's settings as stored, with the settings of earlier versions that are read differently now. */
type StoredSettings = Partial<WidgetSettings> & { handoffConsent?: string };

function fromRow(row: WidgetRow): WidgetRecord {
  // Widgets stored before a setting existed: they send the page's address, as new ones do by
  // default, and speak English, as they did.
  const { handoffConsent, ...stored } = JSON.parse(row.settings) as StoredSettings;
  const settings = { sendPageUrl: true, language: 'en', ...stored } as WidgetSettings;
  const consent = handoffConsent ? ownTextOf(handoffConsent) : '';
  // The consent wording was a setting of its own before it became one of the widget's texts: the
  // owner's wording stays until the owner writes another (saving the widget then stores it as a text).
  if (consent && !settings.strings?.handoffConsent) settings.strings = { ...settings.strings, handoffConsent: consent };
  return { ...settings, id: row.id, name: row.name, enabled: row.enabled === 1, createdAt: row.created_at, updatedAt: row.updated_at };
}

/**
 * An earlier setting's text as the widget's texts take it: one line (the setting took line breaks,
 * which the widget showed as spaces anyway) without bidirectional controls.
 */
function ownTextOf(text: string): string {
  return text
    .replace(/[\u202A-\u202E\u2066-\u2069]/gu, '')
    .replace(/[\s\p{Cc}]+/gu, ' ')
    .trim();
}
