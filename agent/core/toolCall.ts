// One model tool call, end to end: parse the input, announce it, compute its
// effect, pass the gate (maybe asking the person), run it, report the result.
// Every failure here is a result the model sees, never a failed turn.
import type { Tool, ToolContext, ToolEffect, ToolResult, ToolUserContent } from '../tools/tool';
import type { PermissionAsker, PermissionGate } from './gate';
import { jsonStringBytes } from './jsonSize';
import { capText } from './outputCap';
import { ProgressStream } from './progressStream';
import type { Session } from './session';
import type { ToolCallContent, ToolCallFields } from './updates';

export interface ToolCallRequest {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

export interface ToolCallDeps {
  session: Session;
  tools: ReadonlyMap<string, Tool<any>>;
  gate: PermissionGate;
  permissions: PermissionAsker;
  /** Shared by every call of the turn; `progress` is added per call. */
  context: Omit<ToolContext, 'progress'>;
  /** Sandbox state and network in words, added to every command approval question. */
  commandContext?: { sandbox: string; network: string };
  /** Runs after approval, before a call that changes files or runs a command. */
  beforeChange?(toolName: string): Promise<void>;
  /**
   * Waits until the call may run beside the response's other calls (see
   * callScheduler.ts); called once the call is announced, before its effect is computed.
   */
  admit?(kind: Tool['kind'], paths: string[]): Promise<void>;
  /**
   * A durable approval already given for this call: it is not announced or
   * asked again, and runs only if what it would do is still exactly what was
   * shown (`content`); otherwise it fails and the model is told to ask again.
   */
  approved?: { content: ToolCallContent[] };
}


export interface ToolCallOutcome {
  forModel: string;
  isError: boolean;
  /** The approval question went out as a durable request; the call waits for its answer (the card stays pending). */
  deferred?: { requestId: string; toolCall: ToolCallFields };
}

function toAcpContent(content: ToolUserContent[]): ToolCallContent[] {
  return fitDiffs(
    content.map((item) => {
      if (item.type === 'text') return { type: 'content', content: { type: 'text', text: capText(item.text) } };
      return item;
    }),
  );
}

/**
 * What the diffs of one message may take as JSON. Old and new text come
 * whole from a file the agent's commands can fill with anything (a control
 * character is 6 bytes as JSON): a message past the client's 32 MiB line
 * limit would end its connection. Diffs past this budget are shown as a note.
 */
export const DIFF_BUDGET_BYTES = 16 * 1024 * 1024;

export function fitDiffs(content: ToolCallContent[], budget = DIFF_BUDGET_BYTES): ToolCallContent[] {
  let left = budget;
  return content.map((item) => {
    if (item.type !== 'diff') return item;
    const bytes = jsonStringBytes(item.oldText ?? null) + jsonStringBytes(item.newText);
    if (bytes <= left) {
      left -= bytes;
      return item;
    }
    const size = `${Math.max(1, Math.round(bytes / (1024 * 1024)))} MB`;
    return { type: 'content', content: { type: 'text', text: `The change to ${item.path} is too large to show here (${size} as text).` } };
  });
}

/** What the person sees when asked: the whole effect, not a summary. */
function effectContent(effect: ToolEffect, clientPath: (p: string) => string, commandContext?: ToolCallDeps['commandContext']): ToolCallContent[] {
  if (effect.type === 'files') {
    return fitDiffs(effect.changes.map((change): ToolCallContent =>
      change.newText === null
        ? { type: 'content', content: { type: 'text', text: change.movedTo ? `Move ${change.path} → ${change.movedTo}` : `Delete ${change.path}` } }
        : { type: 'diff', path: clientPath(change.movedTo ?? change.path), oldText: change.oldText, newText: change.newText },
    ));
  }
  if (effect.type === 'command') {
    const { argv, cwd, envChanges, timeoutMs } = effect.command;
    const env = Object.entries(envChanges).map(([k, v]) => `${k}=${v}`).join(' ');
    const line = `Run ${JSON.stringify(argv)} in ${cwd}${env ? ` with ${env}` : ''} (timeout ${Math.round(timeoutMs / 1000)} s)`;
    const context = commandContext ? `\nSandbox: ${commandContext.sandbox}\nNetwork: ${commandContext.network}` : '';
    return [{ type: 'content', content: { type: 'text', text: line + context } }];
  }
  return [];
}

function effectRawInput(input: unknown, effect: ToolEffect, commandContext?: ToolCallDeps['commandContext']): unknown {
  if (effect.type === 'command') {
    const { argv, cwd, envChanges } = effect.command;
    return { ...(input as object), argv, cwd, envChanges, ...(commandContext ? { sandbox: commandContext.sandbox, network: commandContext.network } : {}) };
  }
  return input;
}

/** Diffs a tool reports name the person's file (see Session.clientPath); other content is unchanged. */
function forClient(content: ToolCallContent[], clientPath: (p: string) => string): ToolCallContent[] {
  return content.map((item) => (item.type === 'diff' ? { ...item, path: clientPath(item.path) } : item));
}

export const DECLINED = 'The person declined this call, so it was not run. Ask them how they want to proceed instead of retrying it unchanged.';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function runToolCall(call: ToolCallRequest, deps: ToolCallDeps): Promise<ToolCallOutcome> {
  // The call stops with its turn, or alone (session.cancelCall: the person cancelled this one call; the turn goes on).
  const tracked = deps.session.trackCall(call.toolCallId, deps.context.signal);
  try {
    return await runOne(call, { ...deps, context: { ...deps.context, signal: tracked.signal } });
  } finally {
    tracked.done();
  }
}

async function runOne(call: ToolCallRequest, deps: ToolCallDeps): Promise<ToolCallOutcome> {
  const { session } = deps;
  const emit = session.updates.emit.bind(session.updates);
  const clientPath = (p: string) => session.clientPath(p);
  // `_meta` a tool gives its live output (a child's progress is marked so clients that show the child skip it).
  let progressMeta: Record<string, unknown> | undefined;
  const progress = new ProgressStream((snapshot) =>
    emit({
      sessionUpdate: 'tool_call_update',
      toolCallId: call.toolCallId,
      content: [{ type: 'content', content: { type: 'text', text: snapshot } }],
      ...(progressMeta ? { _meta: progressMeta } : {}),
    }),
  );
  const tool = deps.tools.get(call.toolName);
  const hides = deps.gate.hides?.bind(deps.gate);
  let personApproved = false;
  const context: ToolContext = {
    ...deps.context,
    ...(hides && tool ? { hidden: (absolutePath: string) => hides(tool, absolutePath, personApproved) } : {}),
    toolCallId: call.toolCallId,
    progress: (text, meta) => {
      if (meta) progressMeta = meta;
      progress.push(text);
    },
  };
  const fail = async (message: string, status: 'failed' = 'failed'): Promise<ToolCallOutcome> => {
    await emit({ sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status, content: [{ type: 'content', content: { type: 'text', text: message } }] });
    return { forModel: message, isError: true };
  };

  if (!tool) {
    await emit({ sessionUpdate: 'tool_call', toolCallId: call.toolCallId, title: call.toolName, kind: 'other', status: 'pending', rawInput: call.input });
    return fail(`There is no tool named "${call.toolName}". Available tools: ${[...deps.tools.keys()].join(', ')}.`);
  }
  const parsed = tool.input.safeParse(call.input);
  if (!parsed.success) {
    await emit({ sessionUpdate: 'tool_call', toolCallId: call.toolCallId, title: tool.name, kind: tool.kind, status: 'pending', rawInput: call.input });
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
    return fail(`Invalid input for ${tool.name}: ${issues}`);
  }
  const input = parsed.data;
  let described: ReturnType<Tool['describe']>;
  try {
    described = tool.describe(input, context);
  } catch {
    described = { title: tool.name, locations: [] };
  }
  const locations = described.locations.map((l) => ({ ...l, path: clientPath(l.path) }));
  if (!deps.approved) await emit({
    sessionUpdate: 'tool_call',
    toolCallId: call.toolCallId,
    title: described.title,
    kind: tool.kind,
    status: 'pending',
    locations,
    rawInput: input,
  });
  await deps.admit?.(tool.kind, described.locations.map((l) => l.path));
  if (context.signal.aborted) return fail('Cancelled before it ran.');

  let effect: ToolEffect;
  try {
    effect = await tool.effect(input, context);
  } catch (error) {
    if (context.signal.aborted) return fail('Cancelled.');
    return fail(errorText(error));
  }

  if (effect.type === 'error') return fail(effect.message);
  const decision = await deps.gate.decide(tool, input, effect);
  if (decision === 'deny') {
    const why = deps.gate.why?.(tool, input, effect);
    return fail(`The project's policy does not allow this ${tool.kind} call, so it was not run${why ? `: ${why}` : ''}.`);
  }
  if (decision === 'ask' && deps.approved) {
    // Time passed since the person said yes: the files or the policy may have changed what the call would do.
    if (JSON.stringify(effectContent(effect, clientPath, deps.commandContext)) !== JSON.stringify(deps.approved.content)) {
      return fail('Not run: what this call would do changed after the person approved it. Call it again so they can approve what it does now.');
    }
    personApproved = true;
  } else if (decision === 'ask') {
    const toolCall: ToolCallFields = {
      toolCallId: call.toolCallId,
      title: described.title,
      kind: tool.kind,
      status: 'pending',
      locations,
      rawInput: effectRawInput(input, effect, deps.commandContext),
      content: effectContent(effect, clientPath, deps.commandContext),
    };
    const answer = await deps.permissions.ask(toolCall, context.signal);
    if (typeof answer === 'object') return { forModel: '', isError: false, deferred: { requestId: answer.deferred, toolCall } };
    if (answer === 'cancelled' || context.signal.aborted) return fail('Cancelled before it ran.');
    if (answer === 'reject') return fail(DECLINED);
    personApproved = true;
  }

  if (deps.beforeChange && (effect.type === 'files' || effect.type === 'command')) {
    try {
      await deps.beforeChange(tool.name);
    } catch (error) {
      return fail(`Could not record the state before this change, so it was not run: ${errorText(error)}`);
    }
  }
  await emit({ sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: 'in_progress' });
  let result: ToolResult;
  try {
    result = await tool.run(input, context, effect);
  } catch (error) {
    await progress.close();
    if (context.signal.aborted) return fail('Cancelled while running.');
    return fail(`${tool.name} failed: ${errorText(error)}`);
  }
  await progress.close();
  // A tool may return normally after its work was interrupted (a killed command); it still did not finish.
  const cancelled = context.signal.aborted;
  const cancelNote: ToolCallContent[] = cancelled ? [{ type: 'content', content: { type: 'text', text: 'Cancelled while running.' } }] : [];
  await emit({
    sessionUpdate: 'tool_call_update',
    toolCallId: call.toolCallId,
    status: result.isError || cancelled ? 'failed' : 'completed',
    content: [...forClient(toAcpContent(result.forUser), clientPath), ...cancelNote],
  });
  const forModel = capText(result.forModel);
  if (cancelled) return { forModel: `Cancelled by the person while running. Output so far:\n${forModel}`, isError: true };
  return { forModel, isError: result.isError === true };
}
