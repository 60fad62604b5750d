// The stall watchdog of one model request: the request's signal follows the
// turn's and also fires when the stream has been quiet for too long.
import { StalledStreamError } from '../models/errors';

/**
 * A per-request signal that follows the turn's and also fires after `idleMs`
 * without a stream part. A part only stamps the time: one timer checks the
 * stamp when it fires and sleeps again for what is left, instead of every
 * part clearing and re-arming a timer.
 */
export function idleWatch(turn: AbortSignal, idleMs: number, now: () => number = () => performance.now()) {
  const controller = new AbortController();
  let stalled = false;
  const onTurnAbort = () => controller.abort(turn.reason);
  turn.addEventListener('abort', onTurnAbort, { once: true });
  let lastPart = now();
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const idle = now() - lastPart;
    if (idle < idleMs) {
      timer = setTimeout(check, idleMs - idle);
      return;
    }
    timer = undefined;
    stalled = true;
    controller.abort(new StalledStreamError(idleMs));
  };
  timer = setTimeout(check, idleMs);
  return {
    signal: controller.signal,
    touch: () => {
      lastPart = now();
    },
    stalled: () => stalled && !turn.aborted,
    stop: () => {
      clearTimeout(timer);
      turn.removeEventListener('abort', onTurnAbort);
    },
  };
}
