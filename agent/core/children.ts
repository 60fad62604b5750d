// Child sessions: the `task` tool hands a piece of work to a child agent with
// its own session id, history, title and turn. By default the child gets the
// read-only tools; with `allow_edits` it gets every tool, and each of its
// calls still passes the same policy gate and approval as the parent's,
// landing in the same workspace (so its changes are reviewed like any other).
// A parent runs at most `maxChildren` at once; cancelling the parent's turn
// cancels its children. Everything a child emits is carried on the parent as
// `_accord/child` (so the parent's log holds it and a load replays it); the
// adapter shows it per client (acp/clientView.ts).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { once } from './once';
import type { Tool, ToolKind } from '../tools/tool';
import { inputJsonSchemas } from '../tools/inputSchemas.gen';
import { Session } from './session';
import { runTurn, type TurnDeps } from './turn';
import { CHILD_PROGRESS_META, CHILD_TOOL_CALL_META, type SessionUpdate, type StopReason } from './updates';

export const DEFAULT_MAX_CHILDREN = 3;

const readOnlyKinds = new Set<ToolKind>(['read', 'search', 'think']);

const input = once(() =>
  z.object({
    description: z.string().min(1).max(120).describe('A short title for the task (3-8 words), shown to the person.'),
    prompt: z.string().min(1).describe('Everything the child agent needs: the goal, relevant paths, constraints, and what to report back. It does not see this conversation.'),
    allow_edits: z.boolean().optional().describe('Give the child the tools that change files and run commands (each call still needs the usual approval). Default false: read and search only.'),
  }),
);
type Input = z.infer<ReturnType<typeof input>>;

/** Admits at most `limit` holders at once, first come first served. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async acquire(signal: AbortSignal): Promise<boolean> {
    if (this.active < this.limit) {
      this.active++;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const admit = () => {
        signal.removeEventListener('abort', abandon);
        this.active++;
        resolve(true);
      };
      const abandon = () => {
        this.waiting.splice(this.waiting.indexOf(admit), 1);
        resolve(false);
      };
      this.waiting.push(admit);
      signal.addEventListener('abort', abandon, { once: true });
    });
  }

  release(): void {
    this.active--;
    this.waiting.shift()?.();
  }

  get running(): number {
    return this.active;
  }
}

const limiters = new WeakMap<Session, Limiter>();

/** The last assistant message's text: what the child reports back. */
function finalText(child: Session): string {
  const last = [...child.history].reverse().find((m) => m.role === 'assistant');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

export interface ChildOptions {
  maxChildren: number;
}

/** The `task` tool for turns of `parent`; `deps` are the parent's (read when a task starts). */
export function taskTool(parent: Session, deps: () => TurnDeps, options: ChildOptions): Tool<Input> {
  return {
    name: 'task',
    kind: 'think',
    description: [
      'Hand a self-contained piece of work to a child agent and get its final report back as this tool\'s result.',
      'Use it for research that needs many reads or searches (e.g. "find every caller of X and summarise how it is used"), so this conversation stays short.',
      `Several task calls in one response run in parallel (up to ${options.maxChildren} at a time).`,
      'The child cannot see this conversation: say everything it needs in `prompt`.',
    ].join(' '),
    get input() {
      return input();
    },
    inputJsonSchema: inputJsonSchemas.task,
    describe: (call) => ({ title: `Task: ${call.description}`, locations: [] }),
    effect: async () => ({ type: 'none' }),
    async run(call, ctx) {
      let limiter = limiters.get(parent);
      if (!limiter) limiters.set(parent, (limiter = new Limiter(options.maxChildren)));
      if (!(await limiter.acquire(ctx.signal))) return { forModel: 'Cancelled before the child started.', forUser: [{ type: 'text', text: 'Cancelled before it started.' }], isError: true };
      const child = new Session(randomUUID(), parent.cwd, { ...parent.settings }, parent.root);
      const carry = (update: SessionUpdate) => parent.updates.emit({ sessionUpdate: '_accord/child', sessionId: child.id, update });
      const progressMeta = { [CHILD_PROGRESS_META]: child.id };
      const unsubscribe = child.updates.subscribe((update) => {
        // A client that does not read child sessions follows the child in the task card.
        if (update.sessionUpdate === 'agent_message_chunk') ctx.progress(update.content.text, progressMeta);
        else if (update.sessionUpdate === 'tool_call') ctx.progress(`\n[${update.title}]\n`, progressMeta);
        return carry(update);
      });
      const cancelChild = () => child.cancel();
      ctx.signal.addEventListener('abort', cancelChild, { once: true });
      let stopReason: StopReason | 'error' = 'error';
      try {
        await parent.updates.emit({
          sessionUpdate: 'subagent_update',
          sessionId: child.id,
          title: call.description,
          description: call.prompt.slice(0, 500),
          state: { state: 'running' },
          ...(ctx.toolCallId ? { _meta: { [CHILD_TOOL_CALL_META]: ctx.toolCallId } } : {}),
        });
        await carry({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: call.prompt } });
        if (ctx.signal.aborted) {
          stopReason = 'cancelled';
          return report(call, child, stopReason);
        }
        const parentDeps = deps();
        const tools = parentDeps.tools.filter((t) => t.name !== 'task' && (call.allow_edits || readOnlyKinds.has(t.kind)));
        const permissions = parentDeps.childPermissions ?? parentDeps.permissions;
        stopReason = await runTurn(child, call.prompt, { ...parentDeps, tools, permissions });
        return report(call, child, stopReason);
      } finally {
        ctx.signal.removeEventListener('abort', cancelChild);
        await parent.updates.emit({ sessionUpdate: 'subagent_update', sessionId: child.id, state: { state: 'idle', stopReason } });
        unsubscribe();
        // The child's requests are the parent's bill.
        parent.cost = parent.cost === undefined || child.cost === undefined ? undefined : parent.cost + child.cost;
        limiter.release();
      }
    },
  };
}

function report(call: Input, child: Session, stopReason: StopReason) {
  const text = finalText(child).trim();
  if (stopReason === 'end_turn') {
    return { forModel: text || '(The child finished without a report.)', forUser: [{ type: 'text' as const, text: text || 'Finished without a report.' }] };
  }
  const why = stopReason === 'cancelled' ? 'was cancelled' : `stopped early (${stopReason})`;
  return {
    forModel: `The child agent for "${call.description}" ${why}.${text ? ` Its last words:\n${text}` : ''}`,
    forUser: [{ type: 'text' as const, text: `The child ${why}.${text ? `\n\n${text}` : ''}` }],
    isError: true,
  };
}
