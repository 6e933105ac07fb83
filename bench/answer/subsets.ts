/**
 * Which questions calibrate and which are reported, so nothing is tuned on the figures it reports:
 * questions are dealt round-robin into ten folds by their position in the file; fold 0 is
 * reported, fold 5 calibrates (thresholds, sentence selection).
 */
export const REPORT_FOLD = 0;
export const CALIBRATION_FOLD = 5;

export function fold<T>(rows: T[], which: number, limit = Infinity): T[] {
  return rows.filter((_, i) => i % 10 === which).slice(0, limit);
}
