// Who may speak ACP to `serve`: the holder of the secret, from a page of an
// allowed origin (or no browser at all). The secret is compared in constant
// time: both sides are hashed first, so neither length nor content leaks
// through timing.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SUBPROTOCOL_PREFIX = 'accord.bearer.';

export function generateSecret(): string {
  return randomBytes(24).toString('base64url');
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export function secretMatches(offered: string | undefined, secret: string): boolean {
  // Always compare something, so a missing secret takes as long as a wrong one.
  const ok = timingSafeEqual(digest(offered ?? ''), digest(secret));
  return ok && offered !== undefined;
}

/** The secret a request offers: `Authorization: Bearer <s>`, else a `accord.bearer.<s>` subprotocol. */
export function offeredSecret(request: IncomingMessage): { secret?: string; subprotocol?: string } {
  const header = request.headers.authorization;
  const bearer = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  if (bearer) return { secret: bearer };
  const protocols = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const chosen = protocols.find((p) => p.startsWith(SUBPROTOCOL_PREFIX));
  return chosen ? { secret: chosen.slice(SUBPROTOCOL_PREFIX.length), subprotocol: chosen } : {};
}

/**
 * A browser page from another site must not reach the agent (cross-site
 * WebSocket hijacking). Non-browser clients send no Origin. A page served by
 * this same host:port is same-origin; anything else needs --allow-origin.
 */
export function originAllowed(request: IncomingMessage, allowed: readonly string[]): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (allowed.includes('*') || allowed.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return url.host === request.headers.host && (url.protocol === 'http:' || url.protocol === 'https:');
  } catch {
    return false;
  }
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}
