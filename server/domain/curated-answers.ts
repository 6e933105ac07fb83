/** A curated answer as stored: the owner's own answer to a question of a knowledge base. */
export type CuratedAnswerRecord = {
  id: number;
  knowledgeBaseId: string;
  question: string;
  answer: string;
  alsoAsked: string[];
  createdAt: number;
  updatedAt: number;
};

export type CuratedAnswerFields = Pick<CuratedAnswerRecord, 'question' | 'answer' | 'alsoAsked'>;

export interface CuratedAnswerStore {
  list(knowledgeBaseId: string): CuratedAnswerRecord[];
  get(knowledgeBaseId: string, id: number): CuratedAnswerRecord | null;
  insert(knowledgeBaseId: string, fields: CuratedAnswerFields, at: number): CuratedAnswerRecord;
  update(knowledgeBaseId: string, id: number, fields: CuratedAnswerFields, at: number): CuratedAnswerRecord | null;
  delete(knowledgeBaseId: string, id: number): boolean;
  /** Changes whenever the knowledge base's curated answers change, whoever changed them (the CLI writes beside a running server). */
  version(knowledgeBaseId: string): string;
}
