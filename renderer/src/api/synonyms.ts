import type { Synonyms, SynonymsUpdate } from '../../../common/contract/synonyms.ts';
import { get, put, seg } from './client.ts';

/** A knowledge base's synonym sets: `/admin/api/knowledge-bases/{kb}/synonyms`. */

const path = (knowledgeBaseId: string) => `/knowledge-bases/${seg(knowledgeBaseId)}/synonyms`;

export const getSynonyms = (knowledgeBaseId: string, signal?: AbortSignal) => get<Synonyms>(path(knowledgeBaseId), signal);
export const saveSynonyms = (knowledgeBaseId: string, update: SynonymsUpdate) => put<Synonyms>(path(knowledgeBaseId), update);
