import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { LIMITS } from '../contract/limits.ts';
import { ApiError } from './api-error.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Deepest bracket nesting in a JSON text, counted without parsing. Strings are skipped with
 * indexOf rather than character by character: they are most of a pushed item's text.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // The string ends at the next quote preceded by an even number of backslashes.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return max;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 92 /* \ */) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) max = depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return max;
}

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new ApiError('invalid_json', 'The request body is empty; send a JSON document.');
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid UTF-8.');
  }
  if (jsonDepth(text) > LIMITS.jsonDepth) {
    throw new ApiError('invalid_json', `The JSON document is nested deeper than ${LIMITS.jsonDepth} levels.`);
  }
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    if (error instanceof SyntaxError && /prototype/i.test(error.message)) {
      throw new ApiError('invalid_body', 'The body contains a forbidden key (__proto__ or constructor.prototype).');
    }
    throw new ApiError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * JSON is the only accepted body type. The body is read as bytes so invalid UTF-8 is refused
 * rather than silently replaced, and prototype-poisoning keys are refused rather than stripped.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      const encoding = request.headers['content-encoding'];
      if (encoding && encoding.toLowerCase() !== 'identity') {
        throw new ApiError('unsupported_media_type', `Compressed bodies (Content-Encoding: ${encoding}) are not accepted; send the JSON uncompressed.`);
      }
      // Many HTTP clients label every request as JSON: a route that takes no body (DELETE, retry)
      // accepts an empty one so labelled.
      if ((body as Buffer).length === 0 && !request.routeOptions.schema?.body) return done(null, undefined);
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
