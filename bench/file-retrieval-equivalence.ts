/**
 * Files against JSON items on the same text: the SQuAD passages of ../shared/eval pushed as JSON
 * items (one per passage), and uploaded as files, one article per file, in PDF (three passages a
 * page), DOCX and Markdown (the passages as paragraphs under the article's title). Each question
 * is searched (hybrid) in each knowledge base, and scored in paragraphs in both: each passage
 * returned (results in rank order, each result's passages in its order) stands for the SQuAD
 * paragraph it shares most runs of 8 consecutive words with (a file's chunk may hold the end of one
 * paragraph and the start of the next); recall@5 is whether the gold paragraph is among the first
 * five distinct paragraphs so reached. For JSON items this is the usual item recall@5. Also: how
 * many PDF hits carry the page the gold paragraph is on.
 * Usage: npm run bench:file-retrieval --  [--articles 10] [--questions 400]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/main.ts';
import { docxFile, pdfFile } from '../test/helpers/document-fixtures.ts';
import { benchEnv, EVAL_DIR, readJsonl } from './lib/server-child.ts';

const { values } = parseArgs({ options: { articles: { type: 'string', default: '10' }, questions: { type: 'string', default: '400' } } });
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
/** The paragraph a passage stands for: the one it shares most word runs with. */
function paragraphOf(passageText: string): string | null {
  const mine = shingles(passageText);
  let best: string | null = null;
  let most = 0;
  for (const [id, gold] of goldShingles) {
    let shared = 0;
    for (const s of mine) if (gold.has(s)) shared++;
    if (shared > most) [best, most] = [id, shared];
  }
  return best;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-file-eq-'));
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
  await call('POST', '/ingest/bulk', {
    items: passages.map((p) => ({ integrationId: 'json', knowledgeBaseId: 'json', sourceType: 'ARTICLE', externalId: p.id, data: { title: p.title, content: p.text } })),
  });
  for (const title of titles) {
    const mine = passages.filter((p) => p.title === title);
    const pages: string[][] = [];
    mine.forEach((p, i) => {
      if (i % PER_PAGE === 0) pages.push([]);
      pages.at(-1)!.push(p.text);
    });
    const name = title.replace(/[^\w-]+/g, '_');
    const files: Array<[string, string, Buffer | string]> = [
      ['pdf', `${name}.pdf`, await pdfFile(pages, { title })],
      ['docx', `${name}.docx`, await docxFile([{ heading: 1, text: title }, ...mine.map((p) => ({ text: p.text }))], title)],
      ['md', `${name}.md`, `# ${title}\n\n${mine.map((p) => p.text).join('\n\n')}\n`],
    ];
    for (const [kb, file, bytes] of files) {
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

  const kbs = ['json', 'pdf', 'docx', 'md'] as const;
  const hits: Record<string, number> = { json: 0, pdf: 0, docx: 0, md: 0 };
  let pdfPageRight = 0;
  for (const q of questions) {
    for (const kb of kbs) {
      const answer = await call('POST', `/knowledge-bases/${kb}/search`, { query: q.question, mode: 'hybrid', topK: 5, passages: 5 });
      const reached: Array<{ paragraph: string; page?: number | undefined }> = [];
      for (const passage of (answer.results as Array<{ passages: Array<{ text: string; page?: number }> }>).flatMap((r) => r.passages)) {
        const paragraph = paragraphOf(passage.text);
        if (paragraph && !reached.some((r) => r.paragraph === paragraph)) reached.push({ paragraph, page: passage.page });
        if (reached.length === 5) break;
      }
      const hit = reached.find((r) => r.paragraph === q.gold_passage_id);
      if (hit) {
        hits[kb]!++;
        if (kb === 'pdf' && hit.page === pageOf.get(q.gold_passage_id)) pdfPageRight++;
      }
    }
  }
  const n = questions.length;
  const lines = [
    `SQuAD dev, ${titles.length} articles, ${passages.length} passages, ${n} questions; paragraph recall@5 (hybrid):`,
    ...kbs.map((kb) => `  ${kb.padEnd(5)} ${(hits[kb]! / n).toFixed(3)}${kb === 'json' ? '' : `  (${(hits[kb]! / n - hits.json! / n >= 0 ? '+' : '')}${((hits[kb]! - hits.json!) / n).toFixed(3)} against JSON)`}`),
    `  PDF hits citing the gold paragraph's page: ${pdfPageRight} of ${hits.pdf}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
