// The agent set-ups the ACP tests repeat: a fresh agent with one session in a
// temp folder, and agents over one session log in a temp data dir (a second
// agent on the same log is how load and replay are tested). Everything they
// make is closed and removed after the test's body, whatever it did.
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import type { AccordAgentOptions } from '../../../agent/acp/app';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { builtinTools } from '../../../agent/tools/index';
import { tempDataDir } from '../log/fixtures';
import { after, before } from 'node:test';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { fakeModelFor, inMemoryAgent, inMemoryApp, tempDir, type Harness } from './harness';

/** Runs `run` with a new session (the client declaring `capabilities`) of the agent `makeAgent` gives, in a fresh temp folder. */
export async function withAgentSession(
  makeAgent: () => Harness,
  capabilities: Record<string, unknown>,
  run: (agent: Harness, sessionId: string, root: string) => Promise<void>,
  prefix = 'accord-session-',
): Promise<void> {
  const root = tempDir(prefix);
  try {
    const agent = makeAgent();
    try {
      await run(agent, await agent.newSession(root.path, capabilities), root.path);
    } finally {
      await agent.close();
    }
  } finally {
    root.remove();
  }
}

/**
 * Runs `run` with a temp folder and `logged`, which makes an in-memory agent
 * over a session log in one temp data dir: each call is a fresh agent on the
 * same log, as after a restart.
 */
export async function withLoggedAgents(
  options: Partial<AccordAgentOptions> & { env: AccordAgentOptions['env'] },
  run: (logged: () => Harness, root: string) => Promise<void>,
  prefix = 'accord-logged-',
): Promise<void> {
  const root = tempDir(prefix);
  const { dir, cleanup } = await tempDataDir();
  try {
    await run(() => inMemoryApp(createLoggedAgent({ tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0, ...options }, new SessionStore(dir)).app), root.path);
  } finally {
    await cleanup();
    root.remove();
  }
}

/**
 * For the enclosing `describe`: a fake model server and one in-memory agent
 * on it, initialized, shared by the describe's tests; closed after them.
 */
export function initializedAgent(configPrefix: string): { readonly agent: Harness; readonly model: ReturnType<typeof fakeModelFor> } {
  const model = fakeModelFor(configPrefix);
  let agent: Harness | undefined;
  before(async () => {
    agent = inMemoryAgent({ env: model.env() });
    await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  });
  after(async () => {
    await agent?.close();
  });
  return {
    get agent() {
      if (!agent) throw new Error('the agent starts in before()');
      return agent;
    },
    model,
  };
}
