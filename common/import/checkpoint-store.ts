/**
 * Where an interrupted import resumes: the last row whose batch LocalIQ acknowledged, the items
 * sent up to it, and the job of the last of them (so a resume can check the server still has it).
 */
export type ResumePoint = { lastRow: number; itemsSent: number; lastJobId?: string };

/**
 * Keeps one import's resume point: `localiq import` in a file beside the input, the dashboard in
 * the browser's storage. The store is made for one file with one mapping and target, so a
 * changed file or mapping finds no point and starts over instead of skipping rows it never sent.
 */
export interface CheckpointStore {
  load(): ResumePoint | null;
  save(point: ResumePoint & { lastJobId: string }): void;
  clear(): void;
}
