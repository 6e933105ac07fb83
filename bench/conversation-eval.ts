/**
 * How the assistant answers within a conversation, through the HTTP API (POST
 * /knowledge-bases/{id}/ask with `conversation`), on SQuAD and StackFAQ, extractive:
 *
 * - **follow-up**: SQuAD questions that name their article ("Where did Super Bowl 50 take place?")
 *   asked with the name replaced by "it" ("Where did it take place?"), after an earlier question
 *   about the same article. The same pronoun questions are also asked with no conversation, and
 *   the original questions too, to show what the conversation has to supply. Constructed from
 *   SQuAD: real questions, a substituted pronoun.
 * - **topic change**: each question asked after a question about another item of the same set, as
 *   a user moves on without starting a new conversation. The answer should cite the new question's
 *   item, not the one the conversation was about.
 * - **leaving the knowledge base**: a question of the other set asked after one this knowledge base
 *   answers: there is nothing to answer it from, so the answer should be an abstention.
 *
 * Each earlier turn is asked first, and its real answer is the conversation's assistant turn. Every
 * set is also asked as the first question of a conversation, for comparison.
 * Usage: node --import tsx bench/conversation-eval.ts [--fold 0] [--limit N] [--data-dir DIR] [--keep]
 *   --fold 0 reports (the default); fold 5 is the one to design on.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startIndexedSets } from './answer/indexed-sets.ts';
import { type AnswerRun, ask, type Question, runQuestions } from './answer/run-questions.ts';
import { faqQuestions, fold, REPORT_FOLD, type SquadQuestion, squadQuestions } from './answer/subsets.ts';
import { type ApiTarget } from './retrieval/http-client.ts';
import { EVAL_DIR, readJsonl } from './lib/server-child.ts';

const { values } = parseArgs({
  options: {
    fold: { type: 'string', default: String(REPORT_FOLD) },
    limit: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
  },
});
const which = Number(values.fold);
const limit = values.limit === undefined ? Infinity : Number(values.limit);
const log = (line: string) => process.stderr.write(`[conversation-eval] ${line}\n`);

/** The questions that name their article, with the name replaced by "it", each after another question about that article. */
function followUps(): Array<{ followUp: Question; alone: Question; original: Question }> {
  const titles = new Map(readJsonl<{ id: string; title: string }>(path.join(EVAL_DIR, 'squad-dev/passages.jsonl')).map((p) => [p.id, p.title]));
  const all = readJsonl<SquadQuestion>(path.join(EVAL_DIR, 'squad-dev/questions.jsonl'));
  const namePattern = (title: string) => new RegExp(`\\b${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i');
  const titleOf = (q: SquadQuestion) => titles.get(q.gold_passage_id)!;
  const names = (q: SquadQuestion) => namePattern(titleOf(q)).test(q.question);
  return fold(all, which)
    .filter(names)
    .slice(0, limit)
    .map((q) => {
      const title = titleOf(q);
      const earlier = all.find((other) => other !== q && titleOf(other) === title && names(other))?.question ?? `Tell me about ${title}.`;
      const original: Question = { text: q.question, goldItem: q.gold_passage_id, goldAnswers: q.answers };
      const alone: Question = { ...original, text: q.question.replace(namePattern(title), 'it') };
      return { followUp: { ...alone, conversation: [{ role: 'user', content: earlier }] }, alone, original };
    });
}

/** Each question after the next one in the list that is about another item. */
function afterAnother(questions: Question[], earlier: Question[]): Question[] {
  return questions.map((q, i) => {
    const before = earlier.slice(i + 1).concat(earlier.slice(0, i + 1)).find((e) => e.goldItem !== q.goldItem)!;
    return { ...q, conversation: [{ role: 'user', content: before.text }], previousItem: before.goldItem };
  });
}

/** Fills in each conversation's assistant turn with the real answer to its user turn. */
async function withRealAnswers(target: ApiTarget, kb: string, questions: Question[]): Promise<Question[]> {
  const answered: Question[] = [];
  for (const q of questions) {
    const earlier = q.conversation![0]!.content;
    const answer = await ask(target, kb, earlier);
    answered.push({ ...q, conversation: [{ role: 'user', content: earlier }, { role: 'assistant', content: answer.answer }] });
  }
  return answered;
}

const sets = await startIndexedSets({ dataDir: values['data-dir'], keep: values.keep, log });
try {
  const { target } = sets;
  const squadKb = sets.squad.knowledgeBaseId;
  const faqKb = sets.stackfaq.knowledgeBaseId;
  const squad = squadQuestions(which, limit);
  const faq = faqQuestions(which, limit);
  const pairs = followUps();
  const runs: Record<string, AnswerRun> = {};
  log(`follow-ups: ${pairs.length}`);
  runs.followUp = await runQuestions(target, squadKb, await withRealAnswers(target, squadKb, pairs.map((p) => p.followUp)), false);
  runs.followUpWithoutConversation = await runQuestions(target, squadKb, pairs.map((p) => p.alone), false);
  runs.followUpAsFirstAsked = await runQuestions(target, squadKb, pairs.map((p) => p.original), false);
  log(`topic changes: ${squad.length} SQuAD, ${faq.length} StackFAQ`);
  runs.squadFirstAsked = await runQuestions(target, squadKb, squad, false);
  runs.faqFirstAsked = await runQuestions(target, faqKb, faq, false);
  runs.squadTopicChange = await runQuestions(target, squadKb, await withRealAnswers(target, squadKb, afterAnother(squad, squad)), false);
  runs.faqTopicChange = await runQuestions(target, faqKb, await withRealAnswers(target, faqKb, afterAnother(faq, faq)), false);
  log('leaving the knowledge base');
  runs.squadInFaqFirstAsked = await runQuestions(target, faqKb, squad, false);
  runs.faqInSquadFirstAsked = await runQuestions(target, squadKb, faq, false);
  const leave = (questions: Question[], earlier: Question[], kb: string) =>
    withRealAnswers(target, kb, questions.map((q, i) => ({ ...q, conversation: [{ role: 'user', content: earlier[i % earlier.length]!.text }], previousItem: earlier[i % earlier.length]!.goldItem })));
  runs.squadAfterFaqInFaq = await runQuestions(target, faqKb, await leave(squad, faq, faqKb), false);
  runs.faqAfterSquadInSquad = await runQuestions(target, squadKb, await leave(faq, squad, squadKb), false);
  console.log(JSON.stringify({ when: new Date().toISOString(), machine: `${os.availableParallelism()} cores, node ${process.version}`, fold: which, runs }, null, 2));
  log(table(runs));
} finally {
  await sets.close();
}

function table(runs: Record<string, AnswerRun>): string {
  const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);
  const rows = ['| set | questions | answered | gold answer in answer | gold item cited first | earlier item cited first |', '|---|---|---|---|---|---|'];
  for (const [name, r] of Object.entries(runs)) {
    rows.push(`| ${name} | ${r.questions} | ${pct(r.answered)} | ${pct(r.goldInAnswer)} | ${pct(r.goldCitedFirst)} | ${pct(r.previousCitedFirst)} |`);
  }
  return `\n${rows.join('\n')}\n`;
}
