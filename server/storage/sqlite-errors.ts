import { DuplicateError } from '../domain/errors.ts';

/** Runs a write, turning a broken unique constraint into the domain's DuplicateError. */
export function refusingDuplicates<T>(write: () => T, message: string): T {
  try {
    return write();
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new DuplicateError(message, { cause: error });
    throw error;
  }
}
