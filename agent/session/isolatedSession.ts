// Everything a new session needs from this layer, in one call: the project's
// policy (read from the person's real tree, where the agent cannot write),
// the isolated workspace, the command runner (sandboxed when the machine
// allows) and the policy gate bound to that workspace. The ACP adapter calls
// this in `session/new` and passes `gate`, `runner` and `workspace.root` to
// the core.
import { PolicyGate } from '../policy/gate';
import { loadPolicy, type LoadedPolicy } from '../policy/load';
import { commandContext, type SandboxStatus } from '../sandbox/sandboxHost';
import { createSessionRunner, defaultProtectedPaths, releaseSandbox, startSandbox, type StartedSandbox } from '../sandbox/sessionRunner';
import { startMcpServers, type McpTools } from '../mcp/servers';
import type { CommandRunner, Tool } from '../tools/tool';
import { stat } from 'node:fs/promises';
import { isWithin } from '../workspace/containment';
import { commandReadView } from './commandView';
import { createWorkspace, removeWorkspace, WorkspaceError, type IsolatedWorkspace } from './isolated';
import { reopenPrivateDir } from './privateDir';

export interface SessionSetupOptions {
  sessionId: string;
  /** The folder the client opened (`session/new` cwd). */
  projectRoot: string;
  /** The agent's data directory (not its config directory: that holds credentials). */
  dataDir: string;
  /** `accord acp --always-approve`. */
  alwaysApprove: boolean;
  inPlace?: boolean;
  /** Skip the OS sandbox with this reason (e.g. a setting); the session reports it as unsandboxed. */
  withoutSandbox?: string;
}

/** What a new session's first model request needs, known before its copy is made. */
export interface WorkspacePlan {
  /** The workspace's root, as the finished workspace will have it. */
  root: string;
  /** The project's policy (its MCP servers decide whether the first request must wait for them). */
  policy: LoadedPolicy;
}

export interface IsolatedSession {
  workspace: IsolatedWorkspace;
  gate: PolicyGate;
  runner: CommandRunner;
  sandbox: SandboxStatus;
  policy: LoadedPolicy;
  /** For approval questions about commands: sandbox state and reachable network, in words. */
  commandContext: { sandbox: string; network: string };
  /** Tools of the MCP servers the policy declares, started for this session (kind `other`, same gate). */
  mcpTools: Tool<any>[];
  /** For the client (`_meta` of the session/new response, and a banner): sandbox state, any policy error, MCP servers that failed. */
  meta: {
    'accord/sandbox': SandboxStatus;
    'accord/policyError'?: string;
    'accord/mcpErrors'?: string[];
    'accord/workspace': { mode: IsolatedWorkspace['mode']; root: string };
  };
  /** Stops the runner; with `removeCopy`, also deletes the session's copy and unpins its base. */
  dispose(removeCopy?: boolean): Promise<void>;
}

/** `onPlan`: called (and awaited) once the root and the policy are known, before the copy is made. */
export async function setUpIsolatedSession(options: SessionSetupOptions, onPlan?: (plan: WorkspacePlan) => void | Promise<void>): Promise<IsolatedSession> {
  // The sandbox needs only the policy's domains: it starts while the copy is
  // made, once the plan has been reported (onPlan may hold both back until a
  // first model request went out: srt's start blocks the event loop).
  const policy = loadPolicy(options.projectRoot);
  // Awaited below; marked handled now so a failure while the copy is made is not an unhandled rejection.
  policy.catch(() => undefined);
  let sandbox: Promise<StartedSandbox> | undefined;
  const startingSandbox = (): Promise<StartedSandbox> => {
    sandbox ??= policy.then((loaded) => startSandbox(domainsOf(loaded), options.withoutSandbox));
    sandbox.catch(() => undefined);
    return sandbox;
  };
  if (!onPlan) startingSandbox();
  let workspace: IsolatedWorkspace;
  try {
    // A policy that cannot be read fails the setup below; no plan is reported for it.
    const onRoot =
      onPlan &&
      (async (root: string) => {
        await policy.then((loaded) => onPlan({ root, policy: loaded }), () => undefined);
        startingSandbox();
      });
    workspace = await createWorkspace({ sessionId: options.sessionId, source: options.projectRoot, dataDir: options.dataDir, inPlace: options.inPlace }, onRoot);
  } catch (error) {
    // A copy that failed before its plan never started the sandbox.
    await sandbox?.then(releaseSandbox, () => undefined);
    throw error;
  }
  try {
    return await attach(workspace, options, { policy: await policy, sandbox: await startingSandbox() });
  } catch (error) {
    await removeWorkspace(workspace, options.dataDir).catch(() => undefined);
    throw error;
  }
}

/**
 * The same for a session loaded again: its workspace (as recorded at
 * creation) is used as it is, never re-created. Throws WorkspaceError with a
 * message for the person when the workspace is gone.
 */
export async function reattachIsolatedSession(workspace: IsolatedWorkspace, options: Omit<SessionSetupOptions, 'sessionId' | 'inPlace'>): Promise<IsolatedSession> {
  const present = async (dir: string) => stat(dir).then((s) => s.isDirectory(), () => false);
  for (const dir of [workspace.root, workspace.gitDir, workspace.tmp]) {
    if (!(await present(dir))) {
      const what = workspace.mode === 'in-place' ? 'its change history' : 'its private copy of the project';
      throw new WorkspaceError(
        `Session ${workspace.sessionId} cannot continue: ${what} (${dir}) no longer exists, so the work it did is gone. ` +
          'Start a new session; the conversation can still be read in the session log.',
      );
    }
  }
  if (isWithin(workspace.workTree, workspace.gitDir)) {
    // Made by an Accord whose copies kept their git dir in the work tree, where the agent could rewrite it.
    throw new WorkspaceError(
      `Session ${workspace.sessionId} cannot continue: its copy keeps its git data where the agent's commands could change it, ` +
        `so Accord no longer runs git on it. Its files are still in ${workspace.workTree}; start a new session to go on.`,
    );
  }
  const privateDir = await reopenPrivateDir(workspace.privateDir).catch((error: Error) => {
    throw new WorkspaceError(`Session ${workspace.sessionId} cannot continue: its private folder ${workspace.privateDir} is not usable (${error.message}).`);
  });
  return attach({ ...workspace, privateDir }, { ...options, sessionId: workspace.sessionId });
}

function domainsOf(policy: Awaited<ReturnType<typeof loadPolicy>>): readonly string[] {
  return policy.status === 'invalid' ? [] : policy.policy.network.allowedDomains;
}

/** `started`: the policy and sandbox setUpIsolatedSession began while the copy was made. */
async function attach(
  workspace: IsolatedWorkspace,
  options: SessionSetupOptions,
  started?: { policy: Awaited<ReturnType<typeof loadPolicy>>; sandbox: StartedSandbox },
): Promise<IsolatedSession> {
  const policy = started?.policy ?? (await loadPolicy(options.projectRoot));
  const allowedDomains = domainsOf(policy);
  // Commands may write anywhere in the copy (git needs the clone's .git even
  // when the session opened a subfolder); protected paths at both levels stay read-only.
  const inPlace = workspace.mode === 'in-place';
  const protectedPaths = [...new Set([...defaultProtectedPaths(workspace.workTree, inPlace), ...defaultProtectedPaths(workspace.root, inPlace)])];
  // The whole data directory is hidden (transcripts, other sessions, logs), but for this session's own copy.
  const view = await commandReadView(workspace, options.dataDir);
  // Beyond the built-in allowlist, commands get only the variables the reviewed policy names.
  const passEnvironment = policy.status === 'invalid' ? [] : policy.policy.environment.pass;
  const session = await createSessionRunner(
    { workspace: workspace.workTree, sessionTmp: workspace.tmp, allowedDomains, protectedPaths, hiddenPaths: view.hidden, readablePaths: view.readable, passEnvironment },
    options.withoutSandbox,
    started?.sandbox,
  );
  const gate = new PolicyGate({ loaded: policy, root: workspace.root, sandboxed: session.status.state === 'sandboxed', alwaysApprove: options.alwaysApprove });
  let mcp: McpTools | undefined;
  if (policy.status !== 'invalid' && policy.policy.mcpServers.length > 0) {
    // Servers run like commands: confined to the session workspace, scrubbed environment, the policy's network.
    mcp = await startMcpServers(policy.policy.mcpServers, (argv, envChanges) => session.runner.launch(argv, workspace.root, envChanges));
  }
  return {
    workspace,
    gate,
    runner: session.runner,
    sandbox: session.status,
    policy,
    commandContext: commandContext(session.status, allowedDomains),
    mcpTools: mcp?.tools ?? [],
    meta: {
      'accord/sandbox': session.status,
      ...(policy.status === 'invalid' ? { 'accord/policyError': policy.error } : {}),
      ...(mcp && mcp.problems.length > 0 ? { 'accord/mcpErrors': mcp.problems } : {}),
      'accord/workspace': { mode: workspace.mode, root: workspace.root },
    },
    async dispose(removeCopy = false) {
      await mcp?.close();
      session.dispose();
      if (removeCopy) await removeWorkspace(workspace, options.dataDir);
    },
  };
}
