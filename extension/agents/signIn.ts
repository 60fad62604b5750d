// ACP sign-in: the ways an agent offered in `initialize` (`authMethods`), and
// running the one a person chose. An `agent` method is one `authenticate`
// request; a `terminal` method runs the agent's own configured command with the
// method's extra args and env in a VS Code terminal, where the person logs in
// through the agent's own screens; exit code 0 means signed in, and the agent
// is started again so it picks the credentials up.
import * as vscode from 'vscode';
import { methods, type AuthMethod } from '@agentclientprotocol/sdk/unstable';
import type { AuthChoice } from '../../webview/protocol';
import type { AgentHost } from './agentHost';
import { agentEnvironment } from './agentEnv';
import { agentLine, forIconLabel } from '../text/agentText';

/** JSON-RPC error code ACP uses for "authentication required". */
export const AUTH_REQUIRED = -32000;

export function isAuthRequired(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === AUTH_REQUIRED;
}

/** The methods as the panel shows them (the agent's words, clipped; the panel escapes them again). */
export function authChoices(offered: readonly AuthMethod[] | null | undefined): AuthChoice[] {
  return (offered ?? []).slice(0, 20).flatMap((m): AuthChoice[] => {
    if (typeof m?.id !== 'string' || m.id.length === 0 || m.id.length > 512) return [];
    const description = typeof m.description === 'string' && m.description ? agentLine(m.description, 500) : undefined;
    return [{ methodId: m.id, name: agentLine(m.name || m.id, 120), ...(description ? { description } : {}), terminal: 'type' in m && m.type === 'terminal' }];
  });
}

export type SignInResult = { ok: true } | { ok: false; message: string };

/**
 * Runs the method `methodId`, which must be one the agent offered (the panel's
 * word for it is never trusted on its own).
 */
export async function signIn(host: AgentHost, methodId: string, cwd: string | undefined): Promise<SignInResult> {
  await host.ensureStarted();
  const method = (host.info?.authMethods ?? []).find((m) => m.id === methodId);
  if (!method) return { ok: false, message: `${host.name} does not offer a sign-in called "${agentLine(methodId, 80)}".` };
  if ('type' in method && method.type === 'terminal') return inTerminal(host, method, cwd);
  const connection = host.connection;
  if (!connection) return { ok: false, message: `${host.name} is not running.` };
  try {
    await connection.agent.request(methods.agent.authenticate, { methodId });
    return { ok: true };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

async function inTerminal(host: AgentHost, method: Extract<AuthMethod, { type: 'terminal' }>, cwd: string | undefined): Promise<SignInResult> {
  if (host.definition === 'bundled') return { ok: false, message: 'The bundled agent has no terminal sign-in.' };
  const def = host.definition;
  const extraArgs = (method.args ?? []).filter((a): a is string => typeof a === 'string');
  const extraEnv = Object.fromEntries(Object.entries(method.env ?? {}).filter((kv): kv is [string, string] => typeof kv[1] === 'string'));
  // The agent's own environment (minimal + its env, never Accord's stored keys), the method's variables on top.
  const env = { ...agentEnvironment({ host: process.env, kind: 'configured', inheritEnv: def.inheritEnv, own: def.env }), ...extraEnv };
  const terminal = vscode.window.createTerminal({
    name: vscode.l10n.t('Sign in: {0}: {1}', forIconLabel(host.name, 40), forIconLabel(method.name, 40)),
    shellPath: def.command,
    shellArgs: [...def.args, ...extraArgs],
    env,
    strictEnv: true,
    ...(cwd ? { cwd } : {}),
  });
  const closed = new Promise<number | undefined>((resolve) => {
    const sub = vscode.window.onDidCloseTerminal((t) => {
      if (t !== terminal) return;
      sub.dispose();
      resolve(t.exitStatus?.code);
    });
  });
  terminal.show();
  const code = await closed;
  if (code !== 0) return { ok: false, message: `The sign-in in the terminal ended ${code === undefined ? 'before it finished' : `with exit code ${code}`}.` };
  // The running agent read its credentials when it started: start it again.
  await host.restart();
  return { ok: true };
}
