/**
 * Content gaps: the questions visitors asked that the knowledge base could not answer (the
 * assistant abstained) or whose answer a visitor rated down, grouped by meaning
 * (question-grouping.ts) and ranked by how many visitors asked. Groups are kept with the turns
 * that name them; retention removes turns, and a group no turn names any more goes with them.
 */

export type QuestionGroupRecord = {
  id: number;
  knowledgeBaseId: string;
  /** The embedding model that made the centroid. */
  model: string;
  /** The question that started the group. */
  label: string;
  stems: string[];
  centroid: Float32Array;
  members: number;
  createdAt: number;
  /** When the owner wrote the answer from this group, and the item written (`integration/externalId`). */
  answeredAt: number | null;
  answeredItem: string | null;
};

export type UngroupedTurn = { turnId: string; widgetId: string; knowledgeBaseId: string; question: string; answered: boolean; askedAt: number };

/** Where a turn goes: an existing group, or a group made in the same batch (`ref` tells them apart). */
export type GroupAssignment = {
  turn: UngroupedTurn;
  group: { kind: 'existing'; id: number } | { kind: 'new'; ref: number; label: string; stems: string[]; centroid: Float32Array; members: number };
};

export type ContentGapStatus = 'open' | 'answered' | 'all';

export type ContentGapFilter = {
  groupId?: number | undefined;
  widgetId?: string | undefined;
  knowledgeBaseId?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
  /** Open: never answered, or asked again (and still unanswered) since the answer was written. */
  status: ContentGapStatus;
};

export type ContentGapRow = {
  groupId: number;
  knowledgeBaseId: string;
  label: string;
  /** Gap questions of the group (abstained or rated down). */
  asked: number;
  /** Distinct visitors (by the keyed hash of their address) who asked them. */
  visitors: number;
  abstained: number;
  thumbsDown: number;
  lastAskedAt: number;
  answeredAt: number | null;
  answeredItem: string | null;
  /** Gap questions asked after the answer was written: the answer did not settle them. */
  askedSinceAnswer: number;
};

export interface QuestionGroupStore {
  ungrouped(limit: number): UngroupedTurn[];
  countUngrouped(): number;
  groupsOf(knowledgeBaseId: string, model: string): QuestionGroupRecord[];
  group(id: number): QuestionGroupRecord | null;
  resetIfModelChanged(model: string): boolean;
  save(assignments: GroupAssignment[], updated: Array<{ id: number; centroid: Float32Array; members: number }>, model: string, now: number): number[];
  markAnswered(id: number, item: string, at: number): boolean;
  pruneEmpty(limit: number): number;
  gaps(filter: ContentGapFilter, limit: number): ContentGapRow[];
  examples(groupIds: number[], perGroup: number): Map<number, Array<{ question: string; asked: number }>>;
}
