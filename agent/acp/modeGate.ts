// The policy gate an isolated session's tools go through, following the
// session's mode at each call: a mode change applies to the very next tool
// call, even mid-turn. Both gates are the same policy; only whether an edit
// of the session's own copy needs a question differs (modes.ts).
import { copyEditsRunUnasked, modeOf } from '../core/modes';
import type { PermissionGate } from '../core/gate';
import type { Session } from '../core/session';
import type { PolicyGate } from '../policy/gate';

export function modeGate(session: Session, policy: PolicyGate, inPlace: boolean): PermissionGate {
  const asking = policy.with({ copyEditsReviewed: false });
  const auto = policy.with({ copyEditsReviewed: copyEditsRunUnasked('auto', inPlace) });
  const current = () => (modeOf(session.settings) === 'auto' ? auto : asking);
  return {
    decide: (tool, input, effect) => current().decide(tool, input, effect),
    why: (tool, input, effect) => current().why(tool, input, effect),
    hides: (tool, absolutePath, personApproved) => current().hides(tool, absolutePath, personApproved),
  };
}
