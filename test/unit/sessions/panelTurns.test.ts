// The panel's turn states as the session controller draws them (panelTurns.ts),
// against a fake agent connection that runs prompts one at a time in the
// order sent, as the bundled agent does. The case that was wrong: a durable
// approval answered in its dialog before the asking turn's `waiting` reached
// the panel; the agent queued the answer behind that turn and ran it, while
// the panel showed the session idle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AgentHost } from '../../../extension/agents/agentHost';
import type { HostMessage, StopReason } from '../../../webview/protocol';
import { PanelTurns } from '../../../extension/sessions/panelTurns';
import type { CurrentSession, TurnOutcome } from '../../../extension/sessions/sessionTypes';

interface Sent {
  params: { sessionId: string; prompt: unknown[]; _meta?: Record<string, unknown> };
  resolve(response: { stopReason: StopReason }): void;
  reject(error: Error): void;
}

/** An agent that answers prompts in the order sent, when the test says so. */
class FakeAgent {
  readonly sent: Sent[] = [];
  /** Sent and not answered yet, oldest first: the agent runs the head. */
  readonly running: Sent[] = [];
  private readonly abort = new AbortController();
  readonly host: AgentHost;

  constructor() {
    const connection = {
      signal: this.abort.signal,
      agent: {
        request: (_method: string, params: Sent['params']) =>
          new Promise<{ stopReason: StopReason }>((resolve, reject) => {
            const entry = { params, resolve, reject };
            this.sent.push(entry);
            this.running.push(entry);
          }),
      },
    };
    const host = { name: 'Fake Agent', connection: connection as unknown };
    this.host = host as AgentHost;
  }

  finish(stopReason: StopReason): void {
    const head = this.running.shift();
    assert.ok(head, 'the agent runs a prompt');
    head.resolve({ stopReason });
  }

  refuse(message: string): void {
    const head = this.running.shift();
    assert.ok(head, 'the agent runs a prompt');
    head.reject(new Error(message));
  }

  exit(): void {
    this.abort.abort();
    (this.host as { connection?: unknown }).connection = undefined;
    for (const entry of this.running.splice(0)) entry.reject(new Error('connection closed'));
  }

  get connection(): NonNullable<AgentHost['connection']> {
    return (this.host as { connection?: AgentHost['connection'] }).connection!;
  }
}

/** Lets every pending promise callback run (the hooks and the requests are all in-process). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

function setUp(agent = new FakeAgent(), sessionId = 'sess_1') {
  const posted: HostMessage[] = [];
  const refused: string[] = [];
  const hooks: string[] = [];
  const session: CurrentSession = { host: agent.host, sessionId, epoch: 1, configOptions: [], turnInFlight: false };
  let current: CurrentSession | undefined = session;
  const turns = new PanelTurns({
    post: (message) => posted.push(message),
    current: () => current,
    turns: {
      begin: async () => void hooks.push('begin'),
      resume: async () => void hooks.push('resume'),
      end: async () => void hooks.push('end'),
      loaded: async () => undefined,
    },
    onTurnEnded: () => undefined,
    answerRefused: (_host, error) => refused.push(error instanceof Error ? error.message : String(error)),
  });
  const prompt = () =>
    turns.run(session, agent.connection, async () => ((await agent.connection.agent.request('session/prompt' as never, { sessionId, prompt: [{ type: 'text', text: 'hi' }] } as never)) as { stopReason: StopReason }).stopReason, (_e, reason) => `failed: ${reason}`);
  /** The panel's drawing: 'running' after turnStarted, the stop reason after turnEnded. */
  const drawn = () => posted.filter((m) => m.type === 'turnStarted' || m.type === 'turnEnded').map((m) => (m.type === 'turnStarted' ? 'running' : (m as { stopReason: string }).stopReason));
  return { agent, session, turns, posted, refused, hooks, prompt, drawn, showOther: () => (current = { ...session, sessionId: 'sess_other', epoch: 2 }) };
}

test('a durable answer given before the asking turn ends waiting is drawn as a running turn once that turn has ended', async () => {
  const { agent, session, turns, prompt, drawn, hooks } = setUp();
  const first = prompt();
  await settle();
  // The dialog was answered while the turn that asked is still running here.
  const answered = turns.answerDurable(agent.host, session.sessionId, 'perm_1', 'allow_once');
  await settle();
  assert.equal(agent.sent.length, 2, 'the answer is sent at once (the agent queues it behind the running turn)');
  assert.deepEqual(agent.sent[1]!.params._meta, { 'accord/permission': { requestId: 'perm_1', optionId: 'allow_once' } });
  agent.finish('waiting');
  assert.equal((await first)?.stopReason, 'waiting');
  await settle();
  assert.deepEqual(drawn(), ['running', 'waiting', 'running'], 'the continuation is drawn as running, not idle');
  assert.equal(session.turnInFlight, true, 'a second prompt is refused while the continuation runs');
  agent.finish('end_turn');
  const outcome = await answered;
  assert.deepEqual(outcome, { sessionId: session.sessionId, stopReason: 'end_turn' } satisfies TurnOutcome);
  assert.deepEqual(drawn(), ['running', 'waiting', 'running', 'end_turn']);
  assert.equal(session.turnInFlight, false);
  assert.deepEqual(hooks, ['end', 'resume', 'end'], 'the review follows the continuation like any answered approval');
});

test('an answer given after the turn ended waiting is a turn of its own at once', async () => {
  const { agent, session, turns, prompt, drawn } = setUp();
  const first = prompt();
  await settle();
  agent.finish('waiting');
  await first;
  const answered = turns.answerDurable(agent.host, session.sessionId, 'perm_1', 'reject_once');
  await settle();
  assert.deepEqual(drawn(), ['running', 'waiting', 'running']);
  agent.finish('end_turn');
  assert.equal((await answered)?.stopReason, 'end_turn');
  assert.deepEqual(drawn(), ['running', 'waiting', 'running', 'end_turn']);
});

test('two answers queued behind one turn are drawn one after the other', async () => {
  const { agent, session, turns, prompt, drawn } = setUp();
  void prompt();
  await settle();
  const a = turns.answerDurable(agent.host, session.sessionId, 'perm_1', 'allow_once');
  const b = turns.answerDurable(agent.host, session.sessionId, 'perm_2', 'allow_once');
  await settle();
  agent.finish('waiting');
  await settle();
  agent.finish('waiting');
  assert.equal((await a)?.stopReason, 'waiting');
  await settle();
  assert.deepEqual(drawn(), ['running', 'waiting', 'running', 'waiting', 'running']);
  agent.finish('end_turn');
  assert.equal((await b)?.stopReason, 'end_turn');
  assert.deepEqual(drawn(), ['running', 'waiting', 'running', 'waiting', 'running', 'end_turn']);
});

test('a queued answer the agent refuses ends its drawn turn with the reason, and says so', async () => {
  const { agent, session, turns, prompt, drawn, refused } = setUp();
  void prompt();
  await settle();
  const answered = turns.answerDurable(agent.host, session.sessionId, 'perm_gone', 'allow_once');
  await settle();
  agent.finish('waiting');
  await settle();
  agent.refuse('unknown permission request perm_gone');
  const outcome = await answered;
  assert.equal(outcome?.stopReason, 'error');
  assert.match(outcome?.error ?? '', /The answer to the approval was not taken: unknown permission request perm_gone/);
  assert.deepEqual(drawn(), ['running', 'waiting', 'running', 'error']);
  assert.deepEqual(refused, ['unknown permission request perm_gone']);
});

test('an answer queued behind a turn the agent\'s exit ended draws no turn (the approval is asked again later)', async () => {
  const { agent, session, turns, prompt, drawn, refused } = setUp();
  const first = prompt();
  await settle();
  const answered = turns.answerDurable(agent.host, session.sessionId, 'perm_1', 'allow_once');
  await settle();
  agent.exit();
  assert.equal((await first)?.stopReason, 'error');
  assert.equal(await answered, undefined);
  await settle();
  assert.deepEqual(drawn(), ['running', 'error']);
  assert.equal(session.turnInFlight, false);
  assert.deepEqual(refused, [], 'a dead agent is not a refusal');
});

test('an answer queued behind a turn of a session the panel no longer shows is sent without a drawn turn', async () => {
  const { agent, session, turns, prompt, drawn, showOther } = setUp();
  const first = prompt();
  await settle();
  const answered = turns.answerDurable(agent.host, session.sessionId, 'perm_1', 'allow_once');
  await settle();
  showOther();
  agent.finish('waiting');
  await first;
  await settle();
  agent.finish('end_turn');
  assert.equal(await answered, undefined);
  assert.deepEqual(drawn(), ['running', 'waiting'], 'nothing is drawn over the session the panel shows now');
});

test('an answer for a session the panel does not show is sent without a turn', async () => {
  const { agent, turns, drawn } = setUp();
  const answered = turns.answerDurable(agent.host, 'sess_elsewhere', 'perm_1', 'allow_once');
  await settle();
  assert.equal(agent.sent.length, 1);
  agent.finish('end_turn');
  assert.equal(await answered, undefined);
  assert.deepEqual(drawn(), []);
});

test('property: the panel draws its session as running exactly while the agent runs one of its prompts', async () => {
  // Reference model: the agent runs prompts one at a time in the order sent, so the session is busy while any is unanswered.
  const step = fc.oneof(
    fc.constant({ kind: 'prompt' as const }),
    fc.constant({ kind: 'answer' as const }),
    fc.constantFrom<StopReason>('waiting', 'end_turn', 'cancelled').map((stopReason) => ({ kind: 'finish' as const, stopReason })),
    fc.constant({ kind: 'refuse' as const }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
      const { agent, session, turns, prompt, drawn } = setUp();
      let answers = 0;
      let finished = 0;
      for (const s of steps) {
        if (s.kind === 'prompt') {
          // The controller refuses a prompt while a turn is drawn (it says so in a notification).
          if (session.turnInFlight) continue;
          void prompt();
        } else if (s.kind === 'answer') {
          void turns.answerDurable(agent.host, session.sessionId, `perm_${++answers}`, 'allow_once');
        } else {
          if (agent.running.length === 0) continue;
          if (s.kind === 'finish') agent.finish(s.stopReason);
          else agent.refuse('refused');
          finished++;
        }
        await settle();
        const shown = drawn();
        const busy = agent.running.length > 0;
        assert.equal(shown.at(-1) === 'running', busy, `drawn ${shown.join(',')} while the agent has ${agent.running.length} prompt(s) to run`);
        assert.equal(session.turnInFlight, busy);
        // A prompt queued behind the running one is drawn once the agent starts it, not before.
        assert.equal(shown.filter((d) => d === 'running').length, finished + (busy ? 1 : 0), 'one drawn turn per prompt the agent has started');
        assert.equal(shown.filter((d) => d !== 'running').length, finished, 'one drawn end per prompt answered');
      }
    }),
    { numRuns: 200 },
  );
});
