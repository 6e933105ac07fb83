import { errorCodes, type FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { LIMITS } from '../../../common/contract/limits.ts';
import { ApiError } from './api-error.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Bytes of body read; what a refused request made the server read (api-key-auth.ts). */
    bodyBytes: number;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const OPEN_OBJECT = 123;
const OPEN_ARRAY = 91;
const CLOSE_OBJECT = 125;
const CLOSE_ARRAY = 93;

/**
 * What makes a JSON body too costly to parse, found in its bytes as they arrive, before it is
 * decoded or parsed: nesting deeper than LIMITS.jsonDepth, or an object with more keys than
 * LIMITS.objectKeys (hundreds of thousands of keys would otherwise hold the event loop in the
 * parser and the validator, and list every one in the answer). A body is refused at its first
 * excess, without reading the rest. Strings are skipped with indexOf rather than byte by byte, as
 * they are most of a pushed item's text; UTF-8 never uses these ASCII bytes inside a character.
 */
export class JsonShapeScan {
  private depth = 0;
  /** Keys seen in the open object at each depth; a colon outside a string follows a key. */
  private readonly keys = new Uint32Array(LIMITS.jsonDepth + 2);
  private inString = false;
  /** Backslashes just before the end of the last chunk, inside a string. */
  private slashes = 0;

  /** Reads the next piece of the body; the problem once there is one, else null. */
  feed(chunk: Uint8Array): string | null {
    // A string left open by the last piece goes on here: resume after its closing quote.
    let i = 0;
    if (this.inString) {
      const quote = this.skipString(chunk, 0);
      if (quote === -1) return null;
      i = quote + 1;
    }
    for (; i < chunk.length; i++) {
      const c = chunk[i];
      if (c === QUOTE) {
        this.inString = true;
        this.slashes = 0;
        i = this.skipString(chunk, i + 1);
        if (i === -1) return null;
      } else if (c === COLON) {
        if (++this.keys[this.depth]! > LIMITS.objectKeys) {
          return `A JSON object in the body has more than ${LIMITS.objectKeys} keys, more than any valid request holds.`;
        }
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (++this.depth > LIMITS.jsonDepth) return `The JSON document is nested deeper than ${LIMITS.jsonDepth} levels.`;
        this.keys[this.depth] = 0;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.depth = Math.max(0, this.depth - 1);
    }
    return null;
  }

  /** Index of the quote that ends the open string, or -1 when it goes on past this chunk. */
  private skipString(chunk: Uint8Array, from: number): number {
    let carried = this.slashes;
    let start = from;
    for (;;) {
      const quote = chunk.indexOf(QUOTE, start);
      const end = quote === -1 ? chunk.length : quote;
      let run = 0;
      while (end - 1 - run >= start && chunk[end - 1 - run] === BACKSLASH) run++;
      if (end - run === start) run += carried;
      if (quote === -1) {
        this.slashes = run;
        return -1;
      }
      // The string ends at a quote preceded by an even number of backslashes.
      if (run % 2 === 0) {
        this.inString = false;
        return quote;
      }
      carried = 0;
      start = quote + 1;
    }
  }
}

/** The problem with a whole JSON text's shape (see JsonShapeScan), or null. */
export const jsonShapeProblem = (text: string): string | null => new JsonShapeScan().feed(Buffer.from(text));

/** The whole body, once its shape passed: decoded strictly and parsed. */
function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new ApiError('invalid_json', 'The request body is empty; send a JSON document.');
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid UTF-8.');
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
 * Its shape is checked piece by piece as it arrives (JsonShapeScan), so a body built to be costly
 * is refused before it is decoded or parsed; the body limit and Content-Length are checked as
 * Fastify's own reader checks them. A body must arrive within `bodyTimeoutMs`: one sent a byte at
 * a time would otherwise hold its connection for Node's request timeout of 5 minutes.
 */
export function registerJsonBodyParser(app: FastifyInstance, bodyTimeoutMs: number): void {
  app.removeAllContentTypeParsers();
  app.decorateRequest('bodyBytes', 0);
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const encoding = request.headers['content-encoding'];
    if (encoding && encoding.toLowerCase() !== 'identity') {
      return done(new ApiError('unsupported_media_type', `Compressed bodies (Content-Encoding: ${encoding}) are not accepted; send the JSON uncompressed.`), undefined);
    }
    const limit = request.routeOptions.bodyLimit ?? LIMITS.defaultBodyBytes;
    const declared = Number(request.headers['content-length']);
    if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), undefined);
    const scan = new JsonShapeScan();
    const chunks: Buffer[] = [];
    let received = 0;
    const tooSlow = setTimeout(() => {
      stop(new ApiError('request_timeout', `The request body did not arrive within ${bodyTimeoutMs / 1000} s.`, undefined, { connection: 'close' }));
    }, bodyTimeoutMs);
    const stop = (error: Error | null, body?: unknown) => {
      clearTimeout(tooSlow);
      request.bodyBytes = received;
      payload.off('data', onData).off('end', onEnd).off('error', onError);
      done(error, body);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return stop(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      const problem = scan.feed(chunk);
      // The connection is closed after the answer, so the rest of the body is never read.
      if (problem) return stop(new ApiError('invalid_json', problem, undefined, { connection: 'close' }));
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (!Number.isNaN(declared) && received !== declared) return stop(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      // Many HTTP clients label every request as JSON: a route that takes no body (DELETE, retry)
      // accepts an empty one so labelled.
      if (received === 0 && !request.routeOptions.schema?.body) return stop(null, undefined);
      try {
        stop(null, parseJsonBody(Buffer.concat(chunks, received)));
      } catch (error) {
        stop(error as Error);
      }
    };
    // A body cut off mid-way is the client's fault (400), as in Fastify's own reader.
    const onError = (error: Error & { statusCode?: number }) => stop(Object.assign(error, { statusCode: error.statusCode ?? 400 }));
    payload.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
