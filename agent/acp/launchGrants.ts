// What the launch granted this connection's sessions, for deciding whether a
// client's `_meta` asks for more: the daemon's connections carry their own
// flags (the bridge's command line); a process serving one connection has the
// flags it was started with.
import type { LaunchGrants } from '../policy/clientMeta';
import type { SessionWorkspaces } from '../session/workspaces';
import type { SessionSharing } from './sharing';

export function launchGrants(sharing: SessionSharing | undefined, isolation: SessionWorkspaces | undefined): LaunchGrants {
  // A shared connection's flags are its own: the daemon process itself is never started with --always-approve.
  const alwaysApprove = sharing ? sharing.flags.alwaysApprove === true : isolation?.settings.alwaysApprove === true;
  return alwaysApprove ? { alwaysApprove } : {};
}
