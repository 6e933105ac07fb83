import type { z } from 'zod';
import type { CuratedAnswerList, CuratedAnswerView, curatedAnswerInputSchema } from '../../../common/contract/curated-answers.ts';
import { del, get, post, put, seg } from './client.ts';

/** A knowledge base's curated answers (the owner's own): `/admin/api/knowledge-bases/{kb}/answers`. */

type CuratedAnswerBody = z.input<typeof curatedAnswerInputSchema>;
const path = (knowledgeBaseId: string) => `/knowledge-bases/${seg(knowledgeBaseId)}/answers`;

export const listCuratedAnswers = (knowledgeBaseId: string, signal?: AbortSignal) => get<CuratedAnswerList>(path(knowledgeBaseId), signal);
export const addCuratedAnswer = (knowledgeBaseId: string, answer: CuratedAnswerBody) => post<CuratedAnswerView>(path(knowledgeBaseId), answer);
export const replaceCuratedAnswer = (knowledgeBaseId: string, id: number, answer: CuratedAnswerBody) => put<CuratedAnswerView>(`${path(knowledgeBaseId)}/${id}`, answer);
export const deleteCuratedAnswer = (knowledgeBaseId: string, id: number) => del<void>(`${path(knowledgeBaseId)}/${id}`);
