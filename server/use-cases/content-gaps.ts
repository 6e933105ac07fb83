import { ALSO_ASKED_LIMIT } from '../../common/contract/curated-answers.ts';
import { DASHBOARD_INTEGRATION, type NearestItem, type WriteAnswerInput } from '../../common/contract/content-gaps.ts';
import type { ContentGapFilter, ContentGapRow, QuestionGroupStore } from '../domain/content-gaps.ts';
import type { JobQueue } from '../domain/job-queue.ts';
import { type CuratedAnswers, sameWording } from '../retrieval/curated/curated-answers.ts';
import type { QuestionGrouper } from '../retrieval/question-groups.ts';
import type { SearchService } from '../retrieval/search.ts';

export type ContentGapDeps = {
  questionGroups: QuestionGroupStore;
  questionGrouper: QuestionGrouper;
  search: SearchService;
  queue: JobQueue;
  curatedAnswers: CuratedAnswers;
};

/** A group of visitors' questions as the report shows it: a few of its wordings and the items nearest its question. */
export type ContentGap = ContentGapRow & { examples: Array<{ question: string; asked: number }>; nearestItems: NearestItem[] };

/**
 * How a group answered by a curated answer records it (`answered_item`): an item is always
 * `integration/externalId`, so this prefix without a slash never reads as one.
 */
export const LINKED_ANSWER = 'curated:';

/** Questions grouped on the spot before a report; the background pass takes the rest. */
const CATCH_UP_BEFORE_REPORT = 256;
const EXAMPLES_PER_GROUP = 5;
const NEAREST_ITEMS = 3;
/** The longest content also given as a curated answer (curatedAnswerInputSchema's answer). */
const CURATED_ANSWER_MAX = 8_000;

/**
 * Content gaps for the owner (docs/content-gaps.md): the report of what visitors asked that the
 * content did not answer, and writing the answer. An answer is an item (sourceType PAGE,
 * integration `dashboard`, the group's knowledge base) pushed through the same queue as
 * `POST /ingest`, so it is processed, searched and cited like any other. It is also the group's
 * curated answer (question: the group's label, also asked: its wordings), so those wordings get it
 * as written, before retrieval ("Writing the answer").
 */
export class ContentGaps {
  constructor(private readonly deps: ContentGapDeps) {}

  /** The report; questions not grouped yet are grouped first (a failure is told to `onGroupingFailure`, and the report shows what is grouped). */
  async report(filter: ContentGapFilter, limit: number, onGroupingFailure: (error: unknown) => void): Promise<{ gaps: ContentGap[]; pending: number }> {
    const { questionGroups, questionGrouper } = this.deps;
    await questionGrouper.catchUp(CATCH_UP_BEFORE_REPORT).catch(onGroupingFailure);
    const rows = questionGroups.gaps(filter, limit);
    const examples = questionGroups.examples(rows.map((r) => r.groupId), EXAMPLES_PER_GROUP);
    const gaps = await Promise.all(rows.map((row) => this.withDetails(row, examples.get(row.groupId) ?? [])));
    return { gaps, pending: questionGrouper.pending() };
  }

  /** Writes the group's answer; null when there is no such group. */
  async writeAnswer(groupId: number, input: WriteAnswerInput) {
    const { questionGroups, queue, curatedAnswers } = this.deps;
    const group = questionGroups.group(groupId);
    if (!group) return null;
    const { title, content, url } = input;
    const externalId = input.externalId ?? `answer-${groupId}`;
    const pushed = await queue.push(
      [
        {
          integrationId: DASHBOARD_INTEGRATION,
          knowledgeBaseId: group.knowledgeBaseId,
          sourceType: 'PAGE',
          externalId,
          data: { title, content, ...(url ? { url } : {}) },
        },
      ],
      null,
    );
    questionGroups.markAnswered(groupId, `${DASHBOARD_INTEGRATION}/${externalId}`, Date.now());
    const curated = curatedAnswerOfGroup(curatedAnswers, group.knowledgeBaseId, group.label, questionGroups.examples([groupId], EXAMPLES_PER_GROUP).get(groupId) ?? [], content);
    const [row] = questionGroups.gaps({ status: 'all', groupId }, 1);
    return {
      jobId: pushed.jobIds[0]!,
      knowledgeBaseId: group.knowledgeBaseId,
      integrationId: DASHBOARD_INTEGRATION,
      externalId,
      group: row ? await this.withDetails(row, questionGroups.examples([groupId], EXAMPLES_PER_GROUP).get(groupId) ?? []) : null,
      curatedAnswerId: curated?.id ?? null,
    };
  }

  /**
   * "Answered by one of your answers": the group's wordings join the curated answer's `alsoAsked`
   * (as the owner confirming each one would: CuratedAnswers.addAlsoAsked) and the group is marked
   * answered by it. Null when there is no such group; 'no_answer' when the curated answer is not
   * one of the group's knowledge base; 'full' when its wordings do not fit (nothing is changed).
   */
  async linkAnswer(groupId: number, curatedAnswerId: number) {
    const { questionGroups, curatedAnswers } = this.deps;
    const group = questionGroups.group(groupId);
    if (!group) return null;
    const answer = curatedAnswers.get(group.knowledgeBaseId, curatedAnswerId);
    if (!answer) return 'no_answer' as const;
    const wordings = [group.label, ...(questionGroups.examples([groupId], ALSO_ASKED_LIMIT).get(groupId) ?? []).map((e) => e.question)]
      .map((q) => q.trim().slice(0, 500))
      .filter((q) => q.length > 0);
    const known = new Set([answer.question, ...answer.alsoAsked].map(sameWording));
    const added = [...new Map(wordings.filter((q) => !known.has(sameWording(q))).map((q) => [sameWording(q), q])).values()];
    if (answer.alsoAsked.length + added.length > ALSO_ASKED_LIMIT) return 'full' as const;
    for (const question of added) curatedAnswers.addAlsoAsked(group.knowledgeBaseId, curatedAnswerId, question);
    questionGroups.markAnswered(groupId, `${LINKED_ANSWER}${curatedAnswerId}`, Date.now());
    const [row] = questionGroups.gaps({ status: 'all', groupId }, 1);
    return { group: row ? await this.withDetails(row, questionGroups.examples([groupId], EXAMPLES_PER_GROUP).get(groupId) ?? []) : null, added };
  }

  private async withDetails(row: ContentGapRow, examples: Array<{ question: string; asked: number }>): Promise<ContentGap> {
    return { ...row, examples, nearestItems: await this.nearest(row) };
  }

  private async nearest(row: ContentGapRow): Promise<NearestItem[]> {
    const outcome = await this.deps.search.search(row.knowledgeBaseId, row.label, { mode: 'hybrid', topK: NEAREST_ITEMS, sourceTypes: null, passages: 1 });
    return outcome.hits.map((hit) => ({
      integrationId: hit.item.integrationId,
      externalId: hit.item.externalId,
      title: hit.item.title,
      url: hit.item.url,
      score: Math.round(hit.score * 1000) / 1000,
    }));
  }
}

/**
 * The group's curated answer: the one already asked by the group's label is replaced (writing the
 * answer again edits it), else one is made. Content too long to be given as one answer stays an
 * item only.
 */
function curatedAnswerOfGroup(curatedAnswers: CuratedAnswers, knowledgeBaseId: string, label: string, examples: Array<{ question: string }>, content: string) {
  const answer = content.trim();
  if (answer.length === 0 || answer.length > CURATED_ANSWER_MAX) return null;
  const question = label.trim().slice(0, 500);
  const alsoAsked = examples.map((e) => e.question.trim().slice(0, 500)).filter((q) => q.length > 0 && q !== question);
  const existing = curatedAnswers.list(knowledgeBaseId).find((a) => a.question === question);
  return existing ? curatedAnswers.update(knowledgeBaseId, existing.id, { answer, alsoAsked: [...new Set([...existing.alsoAsked, ...alsoAsked])].slice(0, 50) }) : curatedAnswers.create(knowledgeBaseId, { question, answer, alsoAsked });
}
