import { UserError } from '../../domain/users.ts';
import { ApiError } from './api-error.ts';

/** A refused change of users (setup, users, passwords) in the error shape; anything else is thrown on. */
export function userErrorToApi(error: unknown): never {
  if (error instanceof UserError) {
    const code = error.reason === 'not_found' ? 'not_found' : error.reason === 'forbidden' ? 'forbidden' : error.reason === 'weak_password' ? 'invalid_body' : 'conflict';
    throw new ApiError(code, error.message, code === 'invalid_body' ? [{ path: 'password', message: error.message }] : undefined);
  }
  throw error;
}
