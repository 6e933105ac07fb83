import { errorSchema } from '../../../common/contract/errors.ts';

/** Error responses every API-key route can give, for the OpenAPI document. */
export const apiKeyErrorResponses = {
  400: errorSchema,
  401: errorSchema,
  403: errorSchema,
  429: errorSchema,
} as const;

export const bodyErrorResponses = {
  ...apiKeyErrorResponses,
  413: errorSchema,
  415: errorSchema,
} as const;

export const apiKeySecurity = [{ apiKey: [] }];
