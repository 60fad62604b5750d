// A turn that started before its session's workspace existed (acp/earlyStart.ts):
// before its first tool call runs, it waits here for the workspace, which
// gives what the calls run through, or for the turn's cancel.
import type { TurnDeps } from './turn';

/** Waits for the workspace (or the turn's cancel) and puts what the calls run through into `deps`; returns the failure's text, if any. */
export async function workspaceReady(deps: TurnDeps, signal: AbortSignal): Promise<string | undefined> {
  const until = deps.untilReady!;
  let onAbort = () => undefined as void;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const ready = await Promise.race([until(), aborted]);
    if (ready === 'aborted') return undefined;
    // In place: the task tool's child turns read these same deps.
    Object.assign(deps, ready);
    delete deps.untilReady;
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
