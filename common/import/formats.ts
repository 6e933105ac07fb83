/**
 * The file formats an import reads, told from the file's name: the command line's path or the
 * name of a file chosen in the browser.
 */
export const IMPORT_FORMATS = ['csv', 'json', 'jsonl'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The name's extension, lowercased, as Node's path.extname finds it (none for `.hidden`). */
function extension(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

export function formatFromName(name: string): ImportFormat | null {
  const ext = extension(name);
  if (ext === '.csv' || ext === '.tsv') return 'csv';
  if (ext === '.json') return 'json';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  return null;
}

/** A `.tsv` file is CSV with tabs; otherwise the CSV parser finds the delimiter itself. */
export function delimiterFromName(name: string): string | undefined {
  return extension(name) === '.tsv' ? '\t' : undefined;
}
