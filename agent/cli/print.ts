// `accord -p "<prompt>"`: one prompt, headless, in this process. The reply
// streams to stdout (text) or every update does (json, NDJSON); the exit
// status says how the turn ended. A permission request is refused unless
// --always-approve, and the refusal is named on stderr with how to allow it.
import { client, methods, type SessionNotification, type StopReason } from '@agentclientprotocol/sdk/unstable';
import { createLoggedAgent } from '../acp/sessionLog';
import { SessionWorkspaces } from '../session/workspaces';
import { WORKSPACE_META_KEY } from '../acp/app';
import { ProcessRunner } from '../exec/processRunner';
import { SessionStore } from '../log';
import { sandboxHost } from '../sandbox/sandboxHost';
import { builtinTools } from '../tools/index';
import { takeAgentOptions, takeValue, UsageError } from './options';
import { terminalSafe } from './terminalText';
import { resolve } from 'node:path';

/** The documented exit statuses: end_turn 0, refusal 3, cancelled 130, anything else 1. */
export function exitStatusFor(stopReason: StopReason | undefined): number {
  if (stopReason === 'end_turn') return 0;
  if (stopReason === 'refusal') return 3;
  if (stopReason === 'cancelled') return 130;
  return 1;
}

interface PrintArgs {
  prompt: string;
  cwd: string;
  format: 'text' | 'json';
  alwaysApprove: boolean;
  model?: string;
}

function parse(argv: string[]): PrintArgs {
  const args = [...argv];
  const at = args.indexOf('-p');
  // `accord -p --cwd x`: the option is not the prompt.
  if (at !== -1 && (args[at + 1] === undefined || /^--[a-z]/.test(args[at + 1]!))) throw new UsageError('-p needs a prompt: accord -p "what to do"');
  let prompt = takeValue(args, '-p') ?? takeValue(args, '--print');
  const cwd = takeValue(args, '--cwd');
  const format = takeValue(args, '--format') ?? 'text';
  const { options, rest } = takeAgentOptions(args);
  if (prompt === undefined && rest.length === 1) prompt = rest.shift();
  if (rest.length > 0) throw new UsageError(`unknown option ${rest.join(' ')}`);
  if (!prompt || prompt.trim() === '') throw new UsageError('-p needs a prompt: accord -p "what to do"');
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format is text or json, not "${format}"`);
  return { prompt, cwd: resolve(cwd ?? options.project ?? process.cwd()), format, alwaysApprove: options.alwaysApprove, ...(options.model ? { model: options.model } : {}) };
}

export async function runPrint(argv: string[]): Promise<number> {
  const args = parse(argv);
  if (args.model) process.env.ACCORD_MODEL = args.model;
  const logs = new SessionStore();
  const isolation = new SessionWorkspaces({ dataDir: logs.dataDir, alwaysApprove: args.alwaysApprove });
  const { app, closeLogs } = createLoggedAgent({ env: process.env, tools: builtinTools(), commands: new ProcessRunner(), isolation }, logs);
  const refused: string[] = [];
  const out = (line: string) => process.stdout.write(line);
  const headless = client({ name: 'accord-print' })
    .onNotification(methods.client.session.update, ({ params }: { params: SessionNotification }) => {
      if (args.format === 'json') {
        out(`${JSON.stringify(params)}\n`);
        return;
      }
      const update = params.update;
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') out(terminalSafe(update.content.text));
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      const title = terminalSafe(params.toolCall.title ?? params.toolCall.toolCallId);
      refused.push(title);
      process.stderr.write(
        `accord -p: refused "${title}": it needs approval and nobody is here to give it. ` +
          'Run again with --always-approve to allow what the project policy does not deny, or allow it in .accord/policy.json.\n',
      );
      return { outcome: { outcome: 'selected', optionId: 'reject_once' } };
    });
  const connection = headless.connect(app);
  let sessionId: string | undefined;
  const onSignal = () => {
    if (sessionId) void connection.agent.notify(methods.agent.session.cancel, { sessionId });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let stopReason: StopReason | undefined;
  try {
    await connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    // In place: a headless run's changes land in the directory it was pointed at (snapshotted before each change).
    const session = await connection.agent.request(methods.agent.session.new, { cwd: args.cwd, mcpServers: [], _meta: { [WORKSPACE_META_KEY]: 'in-place' } });
    sessionId = session.sessionId;
    ({ stopReason } = await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: args.prompt }] }));
  } catch (error) {
    process.stderr.write(`accord -p: ${terminalSafe(error instanceof Error ? error.message : String(error))}\n`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    connection.close();
    await closeLogs();
    await isolation.releaseAll();
    await sandboxHost.settled();
  }
  if (args.format === 'text') out('\n');
  if (args.format === 'json') out(`${JSON.stringify({ stopReason: stopReason ?? 'error', sessionId, refusedPermissions: refused })}\n`);
  if (stopReason && stopReason !== 'end_turn') process.stderr.write(`accord -p: the turn ended: ${stopReason}\n`);
  return exitStatusFor(stopReason);
}
