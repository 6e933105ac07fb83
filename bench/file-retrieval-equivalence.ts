/**
 * Files against JSON items on the same text: the SQuAD passages of ../shared/eval pushed as JSON
 * items (one per passage), and uploaded as files, one article per file, in PDF (three passages a
 * page), DOCX and Markdown (the passages as paragraphs under the article's title). Each question
 * is searched (hybrid) in each knowledge base, and scored in paragraphs in both: each passage
 * returned (results in rank order, each result's passages in its order) stands for the SQuAD
 * paragraph it shares most runs of 8 consecutive words with (a file's chunk may hold the end of one
 * paragraph and the start of the next), and for any other paragraph it holds whole (a chunk may
 * hold a short paragraph beside the one it names); recall@5 is whether the gold paragraph is among
 * the first five distinct paragraphs so reached. For JSON items this is the usual item recall@5. Also: how
 * many PDF hits carry the page the gold paragraph is on, and how many DOCX and Markdown hits carry
 * the article's heading. A second JSON knowledge base holds each article as one item (its
 * passages joined by blank lines), the same split as a file, to tell what the file formats cost
 * from what one item per article costs.
 * Usage: npm run bench:file-retrieval --  [--articles 10] [--questions 400] [--data-dir DIR] [--kbs json,pdf]
 * `--data-dir` keeps the index (a knowledge base already holding items there is not pushed again);
 * `--kbs` pushes and scores only those knowledge bases.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/main.ts';
import { docxFile, pdfFile } from '../test/helpers/document-fixtures.ts';
import { benchEnv, EVAL_DIR, readJsonl } from './lib/server-child.ts';

const { values } = parseArgs({
  options: {
    articles: { type: 'string', default: '10' },
    questions: { type: 'string', default: '400' },
    'data-dir': { type: 'string' },
    kbs: { type: 'string', default: 'json,json-article,pdf,docx,md' },
  },
});
const ALL_KBS = ['json', 'json-article', 'pdf', 'docx', 'md'] as const;
type Kb = (typeof ALL_KBS)[number];
const kbs = values.kbs.split(',').map((kb) => {
  if (!(ALL_KBS as readonly string[]).includes(kb)) throw new Error(`--kbs: unknown knowledge base ${kb} (${ALL_KBS.join(', ')})`);
  return kb as Kb;
});
type Passage = { id: string; title: string; text: string };
type Question = { id: string; question: string; gold_passage_id: string };
const PER_PAGE = 3;
const SHINGLE = 8;

const all = readJsonl<Passage>(path.join(EVAL_DIR, 'squad-dev/passages.jsonl'));
const titles = [...new Set(all.map((p) => p.title))].slice(0, Number(values.articles));
const passages = all.filter((p) => titles.includes(p.title));
const byId = new Map(passages.map((p) => [p.id, p]));
const questions = readJsonl<Question>(path.join(EVAL_DIR, 'squad-dev/questions.jsonl'))
  .filter((q) => byId.has(q.gold_passage_id))
  .slice(0, Number(values.questions));
/** The page of its article's PDF each passage is on. */
const pageOf = new Map<string, number>();

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
function shingles(text: string): Set<string> {
  const w = words(text);
  if (w.length <= SHINGLE) return new Set([w.join(' ')]);
  return new Set(Array.from({ length: w.length - SHINGLE + 1 }, (_, i) => w.slice(i, i + SHINGLE).join(' ')));
}
const goldShingles = new Map(passages.map((p) => [p.id, shingles(p.text)]));
function fromGold(passageText: string, goldId: string): boolean {
  const gold = goldShingles.get(goldId)!;
  for (const s of shingles(passageText)) if (gold.has(s)) return true;
  return false;
}
/**
 * The paragraphs a passage stands for: the one it shares most word runs with, then any other it
 * holds whole (a file's chunk may hold a short paragraph whole beside the one it names). Each takes
 * a place among the five.
 */
function paragraphsOf(passageText: string): string[] {
  const mine = shingles(passageText);
  let best: string | null = null;
  let most = 0;
  const whole: string[] = [];
  for (const [id, gold] of goldShingles) {
    let shared = 0;
    for (const s of mine) if (gold.has(s)) shared++;
    if (shared > most) [best, most] = [id, shared];
    if (shared === gold.size) whole.push(id);
  }
  return best === null ? [] : [best, ...whole.filter((id) => id !== best)];
}

const keep = values['data-dir'] !== undefined;
const dataDir = values['data-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-file-eq-'));
fs.mkdirSync(dataDir, { recursive: true });
const server = await startServer(loadConfig({ ...process.env, ...benchEnv(dataDir) }, { workers: 2 }));
const key = server.services.keys.create({ name: 'bench', scopes: ['iq:import', 'iq:read'] }).value;
const call = async (method: string, url: string, body?: unknown) => {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { 'x-api-key': key, ...(body instanceof FormData || body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
  });
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

try {
  const started = performance.now();
  const holding = (kb: string) =>
    server.services.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM items WHERE knowledge_base_id = ?').get(kb)!.n > 0;
  const toPush = new Set(kbs.filter((kb) => !holding(kb)));
  if (toPush.has('json')) {
    await call('POST', '/ingest/bulk', {
      items: passages.map((p) => ({ integrationId: 'json', knowledgeBaseId: 'json', sourceType: 'ARTICLE', externalId: p.id, data: { title: p.title, content: p.text } })),
    });
  }
  if (toPush.has('json-article')) {
    await call('POST', '/ingest/bulk', {
      items: titles.map((title) => ({
        integrationId: 'json',
        knowledgeBaseId: 'json-article',
        sourceType: 'ARTICLE',
        externalId: title,
        data: { title, content: passages.filter((p) => p.title === title).map((p) => p.text).join('\n\n') },
      })),
    });
  }
  for (const title of titles) {
    const mine = passages.filter((p) => p.title === title);
    const pages: string[][] = [];
    mine.forEach((p, i) => {
      if (i % PER_PAGE === 0) pages.push([]);
      pages.at(-1)!.push(p.text);
    });
    const name = title.replace(/[^\w-]+/g, '_');
    const files: Array<[Kb, string, () => Promise<Buffer | string>]> = [
      ['pdf', `${name}.pdf`, () => pdfFile(pages, { title })],
      ['docx', `${name}.docx`, () => docxFile([{ heading: 1, text: title }, ...mine.map((p) => ({ text: p.text }))], title)],
      ['md', `${name}.md`, async () => `# ${title}\n\n${mine.map((p) => p.text).join('\n\n')}\n`],
    ];
    for (const [kb, file, make] of files) {
      if (!toPush.has(kb)) continue;
      const bytes = await make();
      const form = new FormData();
      form.append('file', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)]), file);
      await call('POST', `/knowledge-bases/${kb}/files`, form);
    }
  }
  // Where pdfkit put each passage: read back from the indexed PDF chunks below (a long passage may flow onto the next page).
  const deadline = Date.now() + 3_600_000;
  while (Date.now() < deadline) {
    const counts = server.services.jobs.countByStatus();
    if (counts.queued === 0 && counts.processing === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const counts = server.services.jobs.countByStatus();
  process.stderr.write(`indexed in ${((performance.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(counts)}\n`);
  for (const row of server.services.db
    .prepare<[], { text: string; page: number }>("SELECT c.text, c.page FROM chunks c JOIN items i ON i.id = c.item_id WHERE i.knowledge_base_id = 'pdf'")
    .all()) {
    for (const p of passages) if (!pageOf.has(p.id) && fromGold(row.text, p.id) && words(row.text).length > 0) pageOf.set(p.id, row.page);
  }

  const hits: Record<string, number> = Object.fromEntries(kbs.map((kb) => [kb, 0]));
  /** Hits whose passage cites the gold paragraph's page (PDF) or the article's heading (DOCX, Markdown). */
  const cited: Record<string, number> = Object.fromEntries(kbs.map((kb) => [kb, 0]));
  for (const q of questions) {
    for (const kb of kbs) {
      const answer = await call('POST', `/knowledge-bases/${kb}/search`, { query: q.question, mode: 'hybrid', topK: 5, passages: 5 });
      const reached: Array<{ paragraph: string; page?: number | undefined; section?: string | undefined }> = [];
      for (const passage of (answer.results as Array<{ passages: Array<{ text: string; page?: number; section?: string }> }>).flatMap((r) => r.passages)) {
        for (const paragraph of paragraphsOf(passage.text)) {
          if (reached.length < 5 && !reached.some((r) => r.paragraph === paragraph)) reached.push({ paragraph, page: passage.page, section: passage.section });
        }
        if (reached.length === 5) break;
      }
      const hit = reached.find((r) => r.paragraph === q.gold_passage_id);
      if (hit) {
        hits[kb]!++;
        if (kb === 'pdf' && hit.page === pageOf.get(q.gold_passage_id)) cited[kb]!++;
        if ((kb === 'docx' || kb === 'md') && hit.section === byId.get(q.gold_passage_id)!.title) cited[kb]!++;
      }
    }
  }
  const n = questions.length;
  const against = (kb: Kb) => {
    if (!kbs.includes('json') || kb === 'json') return '';
    const d = (hits[kb]! - hits.json!) / n;
    return `  (${d >= 0 ? '+' : ''}${d.toFixed(3)} against JSON)`;
  };
  const lines = [
    `SQuAD dev, ${titles.length} articles, ${passages.length} passages, ${n} questions; paragraph recall@5 (hybrid):`,
    ...kbs.map((kb) => `  ${kb.padEnd(12)} ${(hits[kb]! / n).toFixed(3)}${against(kb)}`),
    ...(kbs.includes('pdf') ? [`  PDF hits citing the gold paragraph's page: ${cited.pdf} of ${hits.pdf}`] : []),
    ...(['docx', 'md'] as const).filter((kb) => kbs.includes(kb)).map((kb) => `  ${kb} hits citing the article's heading: ${cited[kb]} of ${hits[kb]}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await server.stop();
  if (keep) process.stderr.write(`index kept in ${dataDir}\n`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
}
