import { parseArgs } from 'node:util';
import { curatedAnswerInputSchema } from '../../common/contract/curated-answers.ts';
import type { Services } from '../services.ts';

export const ANSWERS_USAGE = `  answers list --knowledge-base KB [--json]
                                          print a knowledge base's curated answers (the owner's own answers)
  answers add --knowledge-base KB --question Q --answer A [--also-asked Q2 …] [--json]
                                          add one: a visitor question meaning the same gets A as written
  answers delete --knowledge-base KB <id> delete one`;

/**
 * Curated answers from the command line. They are written to the database the server reads: a
 * running server matches with them from its next question on (it notices the change).
 */
export async function answersCommand(
  args: string[],
  withServices: <T>(run: (services: Services) => T | Promise<T>) => Promise<T>,
  usageError: (message: string) => Error,
): Promise<number> {
  const [action, ...rest] = args;
  if (!['list', 'add', 'delete'].includes(action ?? '')) throw usageError('answers takes list, add or delete.');
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      'knowledge-base': { type: 'string' },
      question: { type: 'string' },
      answer: { type: 'string' },
      'also-asked': { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
    },
  });
  const kb = values['knowledge-base'];
  if (!kb) throw usageError(`answers ${action} needs --knowledge-base.`);
  const id = action === 'delete' ? Number(positionals[0]) : null;
  if (action === 'delete' && !(Number.isInteger(id) && id! > 0)) throw usageError('answers delete needs the id of a curated answer (answers list shows them).');
  const input = action === 'add' ? curatedAnswerInputSchema.safeParse({ question: values.question, answer: values.answer, alsoAsked: values['also-asked'] ?? [] }) : null;
  if (input && !input.success) {
    const issues = input.error.issues.map((issue) => `  ${issue.path.join('.') === 'alsoAsked' ? '--also-asked' : `--${issue.path.join('.')}`}: ${issue.message}\n`);
    process.stderr.write(`localiq: nothing added:\n${issues.join('')}`);
    return 1;
  }
  return withServices(({ reader, curatedAnswers }) => {
    if (!reader.hasKnowledgeBase(kb)) {
      process.stderr.write(`localiq: no knowledge base "${kb}" (one is created by the first item pushed to it).\n`);
      return 1;
    }
    if (action === 'list') {
      const answers = curatedAnswers.list(kb);
      if (values.json) process.stdout.write(`${JSON.stringify({ knowledgeBaseId: kb, answers }, null, 2)}\n`);
      else if (answers.length === 0) process.stdout.write(`No curated answers in ${kb}.\n`);
      else {
        for (const a of answers) {
          process.stdout.write(`${a.id}\t${a.question}${a.alsoAsked.length ? ` (also asked: ${a.alsoAsked.join(' | ')})` : ''}\n\t${a.answer.replace(/\s+/g, ' ')}\n`);
        }
      }
      return 0;
    }
    if (action === 'delete') {
      if (!curatedAnswers.delete(kb, id!)) {
        process.stderr.write(`localiq: no curated answer ${id} in ${kb}.\n`);
        return 1;
      }
      process.stdout.write(`Deleted curated answer ${id} from ${kb}.\n`);
      return 0;
    }
    const added = curatedAnswers.create(kb, input!.data!);
    if (values.json) process.stdout.write(`${JSON.stringify(added, null, 2)}\n`);
    else process.stdout.write(`Added curated answer ${added.id} to ${kb}.\n`);
    return 0;
  });
}
