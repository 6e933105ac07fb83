import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Apart from test-app.ts so that unit tests get a data folder and an item without loading the
// whole server.

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-test-'));
}

/** The item tests push: an article of the `cms` integration in `kb-main`, with overridable fields. */
export function item(overrides: Record<string, unknown> = {}, data: Record<string, unknown> = {}) {
  return {
    integrationId: 'cms',
    knowledgeBaseId: 'kb-main',
    sourceType: 'ARTICLE',
    externalId: 'post-1',
    ...overrides,
    data: { title: 'Opening hours', content: 'We are open Monday to Friday from 9 to 17.', ...data },
  };
}
