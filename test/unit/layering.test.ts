import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

/**
 * Dependencies go one way (docs/architecture.md draws them). Each folder below may import only the
 * folders its rule names; an import of any other part of the repository is a violation. The domain
 * (server/domain) holds the rules, its record types and the interfaces of the stores it needs;
 * storage implements them and services.ts hands them over. pipeline/ and retrieval/ never import
 * each other: both build on indexes/, embedders/ and language/. common/ and widget/ run in browsers.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(entry.name) ? [full] : [];
  });
}

/** Every module a file names in an import or export statement, or a dynamic import(). */
function importsOf(file: string, { typesToo = true } = {}): string[] {
  const source = fs.readFileSync(file, 'utf8');
  // `import type` is erased when compiled: it cannot make modules load in a circle.
  const text = typesToo ? source : source.replace(/^\s*(?:import|export)\s+type\s[^;]*;/gm, '');
  const specifiers: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) specifiers.push(match[1]!);
  return specifiers;
}

/** What a file imports, relative specifiers resolved to paths from the repository root. */
function resolvedImports(file: string, options: { typesToo?: boolean } = {}): Array<{ specifier: string; target: string }> {
  return importsOf(file, options).map((specifier) => ({
    specifier,
    target: specifier.startsWith('.') ? path.relative(ROOT, path.resolve(path.dirname(file), specifier)) : specifier,
  }));
}

function violations(dir: string, forbidden: (target: string) => boolean): string[] {
  return sourceFiles(path.join(ROOT, dir)).flatMap((file) =>
    resolvedImports(file)
      .filter(({ target }) => forbidden(target))
      .map(({ specifier }) => `${path.relative(ROOT, file)} imports ${specifier}`),
  );
}

const under = (target: string, folder: string) => target === folder || target.startsWith(`${folder}/`);

/** Files at the top of server/ that any server folder may use: settings and starting worker threads. */
const SERVER_UTILITIES = ['server/config.ts', 'server/worker-entry.js', 'server/worker-module.ts'];

/** Folder → the parts of the repository it may import (besides itself, packages and Node). */
const RULES: Record<string, string[]> = {
  common: [],
  'widget/src': ['common'],
  renderer: ['common'],
  'server/domain': ['common'],
  'server/language': ['common'],
  'server/embedders': ['common', ...SERVER_UTILITIES],
  'server/storage': ['common', 'server/domain', 'server/language', ...SERVER_UTILITIES],
  'server/secrets': ['common', 'server/domain', 'server/storage'],
  'server/indexes': ['common', 'server/domain', 'server/language', 'server/storage'],
  'server/pipeline': ['common', 'server/domain', 'server/storage', 'server/indexes', 'server/embedders', 'server/language', ...SERVER_UTILITIES],
  'server/retrieval': ['common', 'server/domain', 'server/storage', 'server/indexes', 'server/embedders', 'server/language'],
  'server/webhooks': ['common', 'server/domain', 'server/storage'],
  'server/sources': ['common', 'server/domain', 'server/storage'],
  'server/use-cases': ['common', 'server/domain', 'server/storage', 'server/retrieval', 'server/indexes', 'server/webhooks'],
  // server/http as a whole, then each of its folders: the surfaces build on edge/, never on each other.
  'server/http': ['common', 'server/domain', 'server/storage', 'server/retrieval', 'server/indexes', 'server/secrets', 'server/webhooks', 'server/use-cases', 'server/services.ts', ...SERVER_UTILITIES],
  // The HTTP edge names the part of `Services` each route uses (types only: services.ts builds them).
  'server/http/edge': ['common', 'server/domain', 'server/storage', 'server/retrieval', 'server/indexes', 'server/secrets', 'server/webhooks', 'server/use-cases', 'server/services.ts', ...SERVER_UTILITIES],
  'server/http/api': ['common', 'server/domain', 'server/storage', 'server/retrieval', 'server/use-cases', 'server/http/edge', 'server/services.ts'],
  'server/http/admin': ['common', 'server/domain', 'server/storage', 'server/retrieval', 'server/webhooks', 'server/use-cases', 'server/http/edge', 'server/services.ts'],
  // The visitor side never reads storage: widgets, sessions, conversations and limits come in as domain services.
  'server/http/public': ['common', 'server/domain', 'server/retrieval', 'server/use-cases', 'server/http/edge', 'server/services.ts'],
};

/** Where browsers run the code: no Node built-ins. */
const RUNS_IN_BROWSERS = ['common', 'widget/src', 'renderer'];

function isFirstParty(target: string): boolean {
  return ['common', 'server', 'renderer', 'widget', 'electron', 'test', 'bench', 'scripts'].some((folder) => under(target, folder));
}

/** Each circle of imports in `graph` (file → the files it imports), as `a → b → a`, once. */
function importCircles(graph: Map<string, string[]>): string[] {
  const circles = new Set<string>();
  const done = new Set<string>();
  const visit = (file: string, trail: string[]) => {
    const at = trail.indexOf(file);
    if (at >= 0) {
      const circle = trail.slice(at);
      const first = circle.indexOf([...circle].sort()[0]!);
      const turned = [...circle.slice(first), ...circle.slice(0, first)];
      circles.add([...turned, turned[0]].join(' → '));
      return;
    }
    if (done.has(file) || !graph.has(file)) return;
    for (const target of graph.get(file)!) visit(target, [...trail, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return [...circles];
}

describe('layering', () => {
  it('finds the imports it checks', () => {
    // A guard for the guard: a parser that found nothing would pass every rule.
    const domainImports = sourceFiles(path.join(ROOT, 'server/domain')).flatMap((file) => resolvedImports(file));
    assert.ok(domainImports.some(({ target }) => target === 'server/domain/jobs.ts'));
    assert.ok(domainImports.some(({ target }) => target === 'node:crypto'));
    assert.ok(violations('server/pipeline', (target) => under(target, 'server/storage')).length > 0);
  });

  it('server/cli is imported by nothing else of the server: the command line sits on top', () => {
    const importers = sourceFiles(path.join(ROOT, 'server'))
      .filter((file) => !under(path.relative(ROOT, file), 'server/cli'))
      .flatMap((file) => resolvedImports(file).filter(({ target }) => under(target, 'server/cli')).map(({ specifier }) => `${path.relative(ROOT, file)} imports ${specifier}`));
    assert.deepEqual(importers, []);
    assert.ok(violations('server/cli', (target) => under(target, 'server/storage')).length > 0, 'the guard sees the CLI\'s imports');
  });

  it('the dashboard reaches the admin API only through renderer/src/api: a screen calls a resource\'s function, never a path', () => {
    const CLIENT = 'renderer/src/api/client.ts';
    // Outside api/, the app shell may hand the session's CSRF token and sign-out handler to the client; nothing else.
    const SESSION_STATE = ['setCsrfToken', 'setSignedOutHandler'];
    const files = sourceFiles(path.join(ROOT, 'renderer/src'));
    const clientUsers = files.filter((file) => resolvedImports(file).some(({ target }) => target === CLIENT));
    assert.ok(clientUsers.some((file) => path.relative(ROOT, file) === 'renderer/src/api/widgets.ts'), 'the guard sees the API modules\' imports');
    const outside = (file: string) => !under(path.relative(ROOT, file), 'renderer/src/api');
    const wrongNames = clientUsers.filter(outside).flatMap((file) => {
      const source = fs.readFileSync(file, 'utf8');
      const names = [...source.matchAll(/^\s*import\s*\{([^}]*)\}\s*from\s*['"][^'"]*api\/client\.ts['"]/gm)].flatMap((m) => m[1]!.split(',').map((n) => n.trim()).filter(Boolean));
      if (!names.length) return [`${path.relative(ROOT, file)} imports the HTTP client without naming what`];
      return names.filter((name) => !SESSION_STATE.includes(name)).map((name) => `${path.relative(ROOT, file)} imports ${name} from the HTTP client`);
    });
    assert.deepEqual(wrongNames, []);
    const adminUrls = files.filter(outside).filter((file) => /\bADMIN_PREFIX\b/.test(fs.readFileSync(file, 'utf8')));
    assert.deepEqual(adminUrls.map((file) => path.relative(ROOT, file)), [], 'admin API addresses are built in renderer/src/api');
  });

  it('in the dashboard, api/ builds on nothing of it and components/ on no screen', () => {
    const dashboardImports = (folder: string, forbidden: (target: string) => boolean) =>
      violations(folder, (target) => under(target, 'renderer/src') && forbidden(target));
    assert.deepEqual(dashboardImports('renderer/src/api', (target) => !under(target, 'renderer/src/api')), []);
    assert.deepEqual(dashboardImports('renderer/src/components', (target) => under(target, 'renderer/src/screens')), []);
    assert.ok(dashboardImports('renderer/src/components', (target) => under(target, 'renderer/src/api')).length > 0, 'the guard sees the components\' imports');
  });

  it('has no import circles: a module never loads itself through what it imports (types aside)', () => {
    const graph = new Map<string, string[]>();
    for (const folder of ['common', 'server', 'renderer', 'widget', 'electron']) {
      for (const file of sourceFiles(path.join(ROOT, folder))) {
        graph.set(path.relative(ROOT, file), resolvedImports(file, { typesToo: false }).map(({ target }) => target));
      }
    }
    assert.deepEqual(importCircles(graph), []);
    assert.deepEqual(importCircles(new Map([['a.ts', ['b.ts']], ['b.ts', ['a.ts']]])), ['a.ts → b.ts → a.ts'], 'the guard sees a circle');
  });

  for (const [folder, allowed] of Object.entries(RULES)) {
    it(`${folder} imports only ${allowed.length ? allowed.join(', ') : 'itself'}`, () => {
      const forbidden = (target: string) =>
        (isFirstParty(target) && !under(target, folder) && !allowed.some((other) => under(target, other))) ||
        (RUNS_IN_BROWSERS.includes(folder) && target.startsWith('node:'));
      assert.deepEqual(violations(folder, forbidden), []);
    });
  }
});
