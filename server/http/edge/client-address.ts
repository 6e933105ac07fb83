import net from 'node:net';
import type { FastifyRequest } from 'fastify';
import { canonicalOrigin } from '../../domain/allowed-origins.ts';

/**
 * Who sent a visitor's request, and which origin LocalIQ itself was reached at. Behind a reverse
 * proxy every request comes from the proxy's address, so the per-address limits would lump all
 * visitors together: `X-Forwarded-For` and `X-Forwarded-Proto` are read, but only from the
 * addresses of `LOCALIQ_TRUSTED_PROXY`; from anyone else they are ignored, as anyone can send them.
 */

/** `::ffff:127.0.0.1` (an IPv4 address on a dual-stack socket) and `127.0.0.1` are one address. */
function plainAddress(address: string): string {
  const trimmed = address.trim();
  return trimmed.startsWith('::ffff:') && net.isIPv4(trimmed.slice(7)) ? trimmed.slice(7) : trimmed.toLowerCase();
}

const peerOf = (request: FastifyRequest) => plainAddress(request.raw.socket.remoteAddress ?? '');
const trusted = (address: string, trustedProxies: readonly string[]) => trustedProxies.some((proxy) => plainAddress(proxy) === address);

function firstHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * The visitor's address: the connection's peer, or, when the peer is a trusted proxy, the
 * nearest address in `X-Forwarded-For` that is not itself a trusted proxy (read from the right:
 * everything left of it was written by the client and may be forged).
 */
export function clientAddress(request: FastifyRequest, trustedProxies: readonly string[]): string {
  const peer = peerOf(request);
  if (!trusted(peer, trustedProxies)) return peer;
  const chain = (firstHeader(request, 'x-forwarded-for') ?? '').split(',').map(plainAddress).filter((a) => net.isIP(a) !== 0);
  for (let i = chain.length - 1; i >= 0; i--) if (!trusted(chain[i]!, trustedProxies)) return chain[i]!;
  return chain[0] ?? peer;
}

/** The scheme the visitor used: the listener's own (plain HTTP), or a trusted proxy's `X-Forwarded-Proto`. */
function requestScheme(request: FastifyRequest, trustedProxies: readonly string[]): 'http' | 'https' {
  if (!trusted(peerOf(request), trustedProxies)) return 'http';
  const proto = firstHeader(request, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return proto === 'https' ? 'https' : 'http';
}

/**
 * The origin this request reached LocalIQ at: the scheme above and the `Host` header (which a
 * proxy passes on: see docs/visitor-assistant.md), or null when the Host is not a plain host.
 */
export function ownOrigin(request: FastifyRequest, trustedProxies: readonly string[]): string | null {
  const host = request.headers.host;
  return host ? canonicalOrigin(`${requestScheme(request, trustedProxies)}://${host}`) : null;
}
