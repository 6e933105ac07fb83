import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

/**
 * Dependencies go one way. The domain (server/domain) holds the rules, its record types and the
 * interfaces of the stores it needs; storage implements them, and services.ts hands them over,
 * so the domain imports no storage, HTTP, pipeline or retrieval code. common/ runs in the
 * browser too, so it imports nothing of the server, the dashboard or Node.
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
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
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
function resolvedImports(file: string): Array<{ specifier: string; target: string }> {
  return importsOf(file).map((specifier) => ({
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

describe('layering', () => {
  it('finds the imports it checks', () => {
    // A guard for the guard: a parser that found nothing would pass every rule.
    const domainImports = sourceFiles(path.join(ROOT, 'server/domain')).flatMap(resolvedImports);
    assert.ok(domainImports.some(({ target }) => target === 'server/domain/jobs.ts'));
    assert.ok(domainImports.some(({ target }) => target === 'node:crypto'));
  });

  it('server/domain imports no storage, HTTP, pipeline or retrieval code', () => {
    const outside = ['server/storage', 'server/http', 'server/pipeline', 'server/retrieval'];
    assert.deepEqual(violations('server/domain', (target) => outside.some((folder) => under(target, folder))), []);
  });

  it('common/ imports nothing from server/, renderer/ or Node', () => {
    assert.deepEqual(
      violations('common', (target) => under(target, 'server') || under(target, 'renderer') || target.startsWith('node:')),
      [],
    );
  });
});
