import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { isPrivateAddress } from './addresses.ts';

/** Why a fetch was not made or not finished: said as a skip reason in a sync's summary. */
export class FetchRefused extends Error {
  override readonly name = 'FetchRefused';
}

export type FetchOptions = {
  userAgent: string;
  /** Lets the crawl reach loopback and private addresses (an intranet site). */
  allowPrivateNetwork: boolean;
  /** Bytes of a response body (after decompression); more fails the fetch. */
  maxBytes: number;
  /** Milliseconds for the whole fetch, redirects and body included: a page sent slowly forever fails. */
  timeoutMs: number;
  maxRedirects: number;
  /** Validators of the copy read before: a 304 answers with no body. */
  etag?: string | null;
  lastModified?: string | null;
  accept?: string;
  /** Why a redirect's target may not be followed (another host, disallowed by robots.txt), or null. */
  checkRedirect?: (url: string) => string | null;
  /** Resolves host names; tests give a fake. */
  resolve?: Resolve;
  signal?: AbortSignal;
};

export type FetchedResponse = {
  /** The address that answered, after redirects. */
  url: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The addresses redirected from, in order. */
  redirects: string[];
};

export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * The `lookup` given to each request: the host's addresses are resolved here and every one is
 * checked, so the address connected to is the address checked (no second lookup an attacker's DNS
 * could answer differently).
 */
export function checkedLookup(resolve: Resolve, allowPrivateNetwork: boolean) {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    resolve(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
        const refused = allowPrivateNetwork ? undefined : wanted.find((a) => isPrivateAddress(a.address));
        if (refused) return callback(privateRefusal(hostname, refused.address), '');
        if (options.all) return callback(null, wanted);
        callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

function privateRefusal(hostname: string, address: string): FetchRefused {
  return new FetchRefused(
    `${hostname} is a private or loopback address (${address}); allow the private network for this source to crawl it`,
  );
}

/**
 * One GET with redirects followed by hand: each hop's address is checked again (scheme, the
 * source's scope, its resolved network address), so a public page cannot send the crawl into the
 * private network. The body is read up to `maxBytes` and within `timeoutMs`.
 */
export async function fetchPage(address: string, options: FetchOptions): Promise<FetchedResponse> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const redirects: string[] = [];
  let url = address;
  for (;;) {
    const response = await requestOnce(url, options, signal);
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && response.status !== 304 && location) {
      if (redirects.length >= options.maxRedirects) throw new FetchRefused(`more than ${options.maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new FetchRefused('a redirect to an address that cannot be read');
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new FetchRefused(`a redirect to a ${next.protocol} address`);
      next.hash = '';
      const why = options.checkRedirect?.(next.href);
      if (why) throw new FetchRefused(`redirected to ${next.href}: ${why}`);
      redirects.push(url);
      url = next.href;
      continue;
    }
    return { ...response, url, redirects };
  }
}

async function requestOnce(
  address: string,
  options: FetchOptions,
  signal: AbortSignal,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(address);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // A literal address connects without a lookup, so it is checked here.
  if (isIP(host) && !options.allowPrivateNetwork && isPrivateAddress(host)) throw privateRefusal(host, host);
  const headers: Record<string, string> = {
    'user-agent': options.userAgent,
    accept: options.accept ?? 'text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.8',
    'accept-encoding': 'gzip, deflate, br',
  };
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal, options.timeoutMs));
    const request = client.get(url, {
      headers,
      lookup: checkedLookup(options.resolve ?? systemResolve, options.allowPrivateNetwork) as never,
      signal,
    });
    request.on('error', (error) => reject(error instanceof FetchRefused ? error : signal.aborted ? abortReason(signal, options.timeoutMs) : error));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        reject(new FetchRefused(`larger than ${options.maxBytes} bytes`));
        return void response.destroy();
      }
      const parts: Buffer[] = [];
      let bytes = 0;
      response.on('data', (part: Buffer) => {
        bytes += part.length;
        if (bytes > options.maxBytes) {
          // Settled first: destroying the response makes the request report an abort of its own.
          reject(new FetchRefused(`larger than ${options.maxBytes} bytes`));
          response.destroy();
          request.destroy();
          return;
        }
        parts.push(part);
      });
      response.on('error', (error) => reject(signal.aborted ? abortReason(signal, options.timeoutMs) : error));
      response.on('aborted', () => reject(abortReason(signal, options.timeoutMs)));
      response.on('end', () => {
        try {
          resolve({ status, headers: response.headers, body: decode(Buffer.concat(parts), response.headers['content-encoding'], options.maxBytes) });
        } catch (error) {
          reject(error);
        }
      });
    });
  });
}

function abortReason(signal: AbortSignal, timeoutMs: number): Error {
  const reason = signal.reason as Error | undefined;
  if (reason?.name === 'TimeoutError') return new FetchRefused(`took longer than ${timeoutMs} ms`);
  return reason instanceof Error ? reason : new FetchRefused('stopped');
}

/** The body as the server encoded it, decompressed with the same bound as an uncompressed one. */
function decode(body: Buffer, encoding: string | undefined, maxBytes: number): Buffer {
  const name = (encoding ?? 'identity').trim().toLowerCase();
  if (name === 'identity' || name === '' || body.length === 0) return body;
  try {
    if (name === 'gzip' || name === 'x-gzip') return gunzipSync(body, { maxOutputLength: maxBytes });
    if (name === 'deflate') return inflateSync(body, { maxOutputLength: maxBytes });
    if (name === 'br') return brotliDecompressSync(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if (error instanceof RangeError || (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new FetchRefused(`larger than ${maxBytes} bytes once decompressed`);
    }
    throw new FetchRefused(`its ${name} encoding cannot be read`);
  }
  throw new FetchRefused(`an encoding LocalIQ does not read (${name})`);
}
