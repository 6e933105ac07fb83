import { ERROR_CODES, type ErrorCode, type ErrorDetail } from '../../../common/contract/errors.ts';

/** The one error type routes throw; the error handler turns it into the contract's error body. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.statusCode = ERROR_CODES[code];
    this.headers = headers;
  }
}
