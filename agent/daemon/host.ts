// The sessions of one long-lived process (the daemon, `serve`, a relay
// client) and how a new client connection is served over them. Every
// connection is its own ACP app over the same live sessions, logs and
// workspaces, so clients can come and go (and come back) while turns run.
import type { Stream } from '@agentclientprotocol/sdk/unstable';
import { loggedAgentApp } from '../acp/sessionLog';
import { SessionLogPersistence } from '../acp/sessionLogPersistence';
import { serveVersions } from '../acp/versions';
import { SessionWorkspaces } from '../session/workspaces';
import { MemorySessionStore } from '../core/sessionStore';
import { ProcessRunner } from '../exec/processRunner';
import { SessionStore } from '../log';
import { sandboxHost } from '../sandbox/sandboxHost';
import { builtinTools } from '../tools/index';
import { parseDuration } from '../cli/options';
import { acceptedEnv, type ConnectionFlags } from './handshake';
import { SessionHub } from './hub';

declare const ACCORD_VERSION: string;
export const agentVersion = typeof ACCORD_VERSION === 'string' ? ACCORD_VERSION : '0.0.0-dev';

export class SessionHost {
  readonly logs = new SessionStore();
  readonly isolation = new SessionWorkspaces({ dataDir: this.logs.dataDir, alwaysApprove: false });
  readonly live = new MemorySessionStore();
  readonly persistence = new SessionLogPersistence(this.logs, agentVersion);
  readonly hub: SessionHub;

  constructor(onMaybeIdle: () => void = () => undefined) {
    this.hub = new SessionHub({
      live: this.live,
      persistence: this.persistence,
      isolation: this.isolation,
      logs: this.logs,
      approvalTimeoutMs: parseDuration(process.env.ACCORD_APPROVAL_TIMEOUT ?? '10m') ?? 10 * 60_000,
      onMaybeIdle,
    });
  }

  /** Serves ACP on `stream` until it closes; the connection's flags apply to the sessions it creates. */
  serve(stream: Stream, flags: ConnectionFlags): Promise<void> {
    const connection = this.hub.connect({
      flags: { ...(flags.alwaysApprove === true ? { alwaysApprove: true } : {}), ...(flags.durableRequests === true ? { durableRequests: true } : {}) },
      ...(typeof flags.model === 'string' ? { model: flags.model } : {}),
      ...(typeof flags.project === 'string' ? { project: flags.project } : {}),
    });
    // The daemon was started by some client with its environment; this connection's own keys and model win for what it does.
    const env = { ...process.env, ...acceptedEnv(flags.env) };
    const app = loggedAgentApp({ env, tools: builtinTools(), commands: new ProcessRunner(), isolation: this.isolation, sharing: connection }, this.persistence, this.live);
    // v1 or v2 per connection: clients of both versions can share one session.
    const acp = serveVersions(app, stream);
    return acp.closed.then(
      () => connection.disconnect(),
      () => connection.disconnect(),
    );
  }

  /** Ends running turns (recorded as cancelled), closes every log and the sandbox's helpers. */
  async shutdown(): Promise<void> {
    await this.hub.cancelAll(15_000);
    await this.persistence.closeAll();
    await this.isolation.releaseAll();
    await sandboxHost.settled();
  }
}
