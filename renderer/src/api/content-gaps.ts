import type { z } from 'zod';
import type { AdminContentGapReport, contentGapQuerySchema, LinkAnswerInput, LinkAnswerResult, WriteAnswerInput, WriteAnswerResult } from '../../../common/contract/content-gaps.ts';
import { get, post, queryString } from './client.ts';

/** Questions the knowledge bases could not answer, grouped, and the answers written for them: `/admin/api/content-gaps`. */

export const getContentGapReport = (query: z.input<typeof contentGapQuerySchema>, signal?: AbortSignal) =>
  get<AdminContentGapReport>(`/content-gaps${queryString(query)}`, signal);
export const writeGapAnswer = (gapId: number, answer: WriteAnswerInput) => post<WriteAnswerResult>(`/content-gaps/${gapId}/answer`, answer);
export const linkGapAnswer = (gapId: number, link: LinkAnswerInput) => post<LinkAnswerResult>(`/content-gaps/${gapId}/linked-answer`, link);
