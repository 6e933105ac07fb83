import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { formatSynonymLines, parseSynonymLines, synonymsUpdateSchema, type SynonymSet } from '../../common/contract/synonyms.ts';
import type { Services } from '../services.ts';

export const SYNONYMS_USAGE = `  synonyms list --knowledge-base KB [--json]
                                          print a knowledge base's synonym sets, one per line
  synonyms set --knowledge-base KB FILE   replace them with FILE's (- for stdin): lines such as
                                          "sofa, couch, settee" and "hoodie => sweatshirt, jumper",
                                          or JSON {"sets": [...]} as the admin API takes
  synonyms delete --knowledge-base KB     remove them all`;

async function readInput(file: string): Promise<string> {
  if (file !== '-') return fs.readFileSync(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Lines, or the admin API's JSON body; the refusals as the dashboard words them. */
function readSets(text: string): { sets: SynonymSet[]; errors: string[] } {
  if (!text.trimStart().startsWith('{')) return parseSynonymLines(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { sets: [], errors: [`The file is not valid JSON: ${(error as Error).message}`] };
  }
  const read = synonymsUpdateSchema.safeParse(json);
  if (read.success) return { sets: read.data.sets, errors: [] };
  return { sets: [], errors: read.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`) };
}

/**
 * A knowledge base's synonyms from the command line, for servers without a browser. They are
 * written to the database the server reads at every search: a running server uses them from its
 * next query on.
 */
export async function synonymsCommand(
  args: string[],
  withServices: <T>(run: (services: Services) => T | Promise<T>) => Promise<T>,
  usageError: (message: string) => Error,
): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { 'knowledge-base': { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const kb = values['knowledge-base'];
  if (!['list', 'set', 'delete'].includes(action ?? '')) throw usageError('synonyms takes list, set or delete.');
  if (!kb) throw usageError(`synonyms ${action} needs --knowledge-base.`);
  const input = action === 'set' ? positionals[0] : undefined;
  if (action === 'set' && !input) throw usageError('synonyms set needs a file of synonyms (or - for stdin).');
  const text = input ? await readInput(input) : '';
  return withServices(({ reader, search }) => {
    if (!reader.hasKnowledgeBase(kb)) {
      process.stderr.write(`localiq: no knowledge base "${kb}" (one is created by the first item pushed to it).\n`);
      return 1;
    }
    if (action === 'list') {
      const sets = search.synonymSets(kb);
      if (values.json) process.stdout.write(`${JSON.stringify({ knowledgeBaseId: kb, sets }, null, 2)}\n`);
      else process.stdout.write(sets.length ? `${formatSynonymLines(sets)}\n` : `No synonyms in ${kb}.\n`);
      return 0;
    }
    if (action === 'delete') {
      const had = search.synonymSets(kb).length;
      search.replaceSynonyms(kb, []);
      process.stdout.write(`Removed ${had} synonym set(s) from ${kb}.\n`);
      return 0;
    }
    const { sets, errors } = readSets(text);
    if (errors.length) {
      process.stderr.write(`localiq: nothing changed; the synonyms are refused:\n${errors.map((e) => `  ${e}\n`).join('')}`);
      return 1;
    }
    search.replaceSynonyms(kb, sets);
    process.stdout.write(`${kb} has ${sets.length} synonym set(s) now; the next search uses them.\n`);
    return 0;
  });
}
