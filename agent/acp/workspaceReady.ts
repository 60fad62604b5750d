// session/new answers before the session's isolated copy exists; everything
// that works in the copy (a turn's tools, the review methods) waits here
// first. A copy that could not be made fails each of them with the reason,
// as session/new itself used to; it never falls back to the person's tree.
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import type { IsolatedSession } from '../session/isolatedSession';
import type { SessionWorkspaces } from '../session/workspaces';

/** A failure whose message already says what could not be done (the session's log). */
export class SessionSetupError extends Error {
  override name = 'SessionSetupError';
}

export function setupFailure(sessionId: string, error: unknown): RequestError {
  const message = error instanceof Error ? error.message : String(error);
  return RequestError.internalError({ sessionId }, error instanceof SessionSetupError ? message : `Could not set up the session's workspace: ${message}`);
}

/**
 * The session's workspace once ready, or "cancelled" when `signal` aborts
 * first (session/cancel while the copy is still being made).
 */
export function workspaceFor(isolation: SessionWorkspaces, sessionId: string, signal: AbortSignal): Promise<IsolatedSession | undefined | 'cancelled'> {
  return untilReadyOr(isolation.ready(sessionId), sessionId, signal);
}

/** `pending`'s value, or "cancelled" when `signal` aborts first; a rejection becomes the setup failure the client reads. */
export async function untilReadyOr<T>(pending: Promise<T>, sessionId: string, signal: AbortSignal): Promise<T | 'cancelled'> {
  if (signal.aborted) return 'cancelled';
  let onAbort: () => void = () => undefined;
  const cancelled = new Promise<'cancelled'>((resolve) => {
    onAbort = () => resolve('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([pending, cancelled]);
  } catch (error) {
    throw setupFailure(sessionId, error);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
