// The log behind the protocol: a session recorded by one agent instance is
// listed, loaded (replayed update for update, each with its log offset) and
// continued by a fresh one; a wrong cwd is refused with -32602; and after a
// kill -9 of the real agent process mid-turn, a new process loads the session,
// ends the replay with the interruption, and the next prompt works.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, type AgentApp, type ClientConnection, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { createLoggedAgent } from '../../../agent/acp/sessionLog';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { SessionStore } from '../../../agent/log';
import { builtinTools } from '../../../agent/tools/index';
import { reply, startFakeModelServer } from '../../fakeModelServer/index';
import { agentBundle, isolatedEnv, tempDir, fakeModelFor } from '../agent/harness';
import { tempDataDir } from './fixtures';
import { waitFor } from '../../support/waitFor';

interface Client {
  connection: ClientConnection;
  updates: SessionNotification[];
  /** Permission questions received so far. */
  asked(): number;
  close(): void;
}

function connectClient(connect: (app: ReturnType<typeof client>) => ClientConnection, answerPermissions = true): Client {
  const updates: SessionNotification[] = [];
  let asked = 0;
  const app = client({ name: 'log-test' })
    .onNotification(methods.client.session.update, ({ params }) => void updates.push(params))
    .onRequest(methods.client.session.requestPermission, async () => {
      asked += 1;
      if (!answerPermissions) await new Promise(() => undefined); // a person who never answers
      return { outcome: { outcome: 'selected' as const, optionId: 'allow_once' } };
    });
  const connection = connect(app);
  return { connection, updates, asked: () => asked, close: () => connection.close() };
}

const inMemory = (agentApp: AgentApp) => connectClient((app) => app.connect(agentApp));
const initialize = (c: Client) => c.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
const stripMeta = ({ _meta, ...update }: Record<string, unknown>) => update;

describe('session/load, list, resume, close from the log', () => {
  const model = fakeModelFor('accord-acp-log-config-');
  const env = model.env;
  const agentFor = (dataDir: string) => createLoggedAgent({ env: env(), tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0 }, new SessionStore(dataDir)).app;

  test('a fresh agent lists and loads a recorded session, replays what the client saw, and continues it', { timeout: 120_000 }, async () => {
    const root = tempDir('accord-acp-log-');
    const { dir, cleanup } = await tempDataDir();
    try {
      writeFileSync(join(root.path, 'notes.txt'), 'draft\n');
      const first = inMemory(agentFor(dir));
      const init = await initialize(first);
      assert.equal(init.agentCapabilities?.loadSession, true);
      const { sessionId } = await first.connection.agent.request(methods.agent.session.new, { cwd: root.path, mcpServers: [] });
      model.server.script(
        { type: 'stream', parts: [{ reasoning: 'Look first.' }, { text: 'Editing.' }, { toolCall: { id: 'e1', name: 'edit_file', args: { path: 'notes.txt', old_string: 'draft', new_string: 'final' } } }] },
        reply.text('Done.'),
      );
      await first.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'finish the notes' }] });
      const live = first.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as unknown as Record<string, unknown>);
      assert.ok(live.some((u) => u.sessionUpdate === 'session_info_update' && u.title === 'finish the notes'), 'the first prompt names the session');
      // In one process a session's log stays locked until session/close (a stdio agent releases it on exit).
      await first.connection.agent.request(methods.agent.session.close, { sessionId });
      first.close();
      await first.connection.closed;

      const second = inMemory(agentFor(dir));
      await initialize(second);
      const listed = await second.connection.agent.request(methods.agent.session.list, { cwd: root.path });
      assert.deepEqual(listed.sessions.map((s) => [s.sessionId, s.title]), [[sessionId, 'finish the notes']]);
      const elsewhere = await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: model.configDir, mcpServers: [] }).then(
        () => undefined,
        (error: { code?: number }) => error.code,
      );
      assert.equal(elsewhere, -32602, 'a different cwd is refused');

      await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root.path, mcpServers: [] });
      const replayed = second.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as unknown as Record<string, unknown>);
      const offsets = replayed.map((u) => (u._meta as Record<string, unknown>)['accord/logOffset']);
      assert.ok(offsets.every((o, i) => typeof o === 'number' && (i === 0 || o >= (offsets[i - 1] as number))), 'every replayed update carries its offset');
      const withoutUser = replayed.filter((u) => u.sessionUpdate !== 'user_message_chunk');
      assert.ok(live.every((u) => typeof (u._meta as Record<string, unknown> | undefined)?.['accord/logOffset'] === 'number'), 'every live update carries its offset too');
      assert.deepEqual(withoutUser, JSON.parse(JSON.stringify(live)), 'the client gets exactly the conversation it had, each update with the same offset it had live');
      assert.deepEqual(replayed.map(stripMeta).find((u) => u.sessionUpdate === 'user_message_chunk'), { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'finish the notes' } });

      model.server.script(reply.text('It says final.'));
      const next = await second.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'what does it say now?' }] });
      assert.equal(next.stopReason, 'end_turn');
      const toModel = JSON.stringify(model.server.requests.at(-1)!.body.messages);
      for (const earlier of ['finish the notes', 'Done.', 'e1', 'what does it say now?']) assert.ok(toModel.includes(earlier), `the model saw ${earlier}`);

      await second.connection.agent.request(methods.agent.session.close, { sessionId });
      const before = second.updates.length;
      await second.connection.agent.request(methods.agent.session.resume, { sessionId, cwd: root.path, mcpServers: [] });
      assert.equal(second.updates.length, before, 'resume does not replay');
      second.close();
      const replay = await new SessionStore(dir).replay(sessionId);
      assert.equal(replay.history.filter((m) => m.role === 'user').length, 2);
    } finally {
      root.remove();
      await cleanup();
    }
  });

  const spawnAgent = (dataDir: string, answerPermissions = true) => {
    const child = spawn(process.execPath, [agentBundle, 'acp', '--no-daemon'], { env: { ...env(), ACCORD_HOME: dataDir }, stdio: ['pipe', 'pipe', 'ignore'] });
    const c = connectClient((app) => app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>)), answerPermissions);
    return { child, c, exited: new Promise((resolve) => child.on('close', resolve)) };
  };

  test('cancel ends the turn with its own turn_end record', { timeout: 120_000 }, async () => {
    const root = tempDir('accord-acp-cancel-');
    const { dir, cleanup } = await tempDataDir();
    try {
      const c = inMemory(agentFor(dir));
      await initialize(c);
      const { sessionId } = await c.connection.agent.request(methods.agent.session.new, { cwd: root.path, mcpServers: [] });
      model.server.script({ type: 'stream', parts: Array.from({ length: 100 }, (_, i) => ({ text: `part ${i} ` })), delayMs: 20 });
      const prompt = c.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go on and on' }] });
      await waitFor('three streamed chunks', () => c.updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk').length >= 3);
      await c.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      assert.equal((await prompt).stopReason, 'cancelled');
      const types: string[] = [];
      for await (const { record } of new SessionStore(dir).read(sessionId)) types.push(record.type === 'turn_end' ? `turn_end:${(record as { stopReason: string }).stopReason}` : record.type);
      assert.equal(types.filter((t) => t.startsWith('turn_')).join(' '), 'turn_start turn_end:cancelled');
      assert.equal(types.at(-1), 'turn_end:cancelled', 'nothing of the turn after its end');
      await c.connection.agent.request(methods.agent.session.close, { sessionId });
      c.close();
    } finally {
      root.remove();
      await cleanup();
    }
  });

  test('kill -9 while a permission question is open: the load closes the tool call as failed and the model gets a result for it', { timeout: 180_000 }, async () => {
    const root = tempDir('accord-acp-kill-ask-');
    const { dir, cleanup } = await tempDataDir();
    try {
      writeFileSync(join(root.path, 'notes.txt'), 'draft\n');
      const a = spawnAgent(dir, false);
      await initialize(a.c);
      const { sessionId } = await a.c.connection.agent.request(methods.agent.session.new, { cwd: root.path, mcpServers: [] });
      // A command asks (an edit of the session's copy does not: its review is the approval).
      model.server.script(reply.tool('w1', 'run_command', { argv: [process.execPath, '-e', 'console.log("ran")'] }));
      void a.c.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'run it' }] }).catch(() => undefined);
      await waitFor('the permission question', () => a.c.asked() > 0);
      a.child.kill('SIGKILL');
      await a.exited;

      const b = spawnAgent(dir);
      try {
        await initialize(b.c);
        await b.c.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root.path, mcpServers: [] });
        const last = b.c.updates.filter((n) => n.update.sessionUpdate !== 'agent_message_chunk').at(-1)!.update as unknown as Record<string, unknown>;
        assert.match(JSON.stringify(b.c.updates.at(-1)!.update), /This turn was interrupted/);
        assert.deepEqual([last.sessionUpdate, last.toolCallId, last.status], ['tool_call_update', 'w1', 'failed']);
        model.server.script(reply.text('Understood.'));
        const next = await b.c.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'never mind' }] });
        assert.equal(next.stopReason, 'end_turn');
        assert.match(JSON.stringify(model.server.requests.at(-1)!.body.messages), /before this tool call finished/);
      } finally {
        b.child.kill('SIGKILL');
        await b.exited;
      }
    } finally {
      root.remove();
      await cleanup();
    }
  });

  test('kill -9 of the agent process mid-stream: a new process loads the session, ends with the interruption, and the next prompt works', { timeout: 180_000 }, async () => {
    const root = tempDir('accord-acp-kill-');
    const { dir, cleanup } = await tempDataDir();
    try {
      const a = spawnAgent(dir);
      await initialize(a.c);
      const { sessionId } = await a.c.connection.agent.request(methods.agent.session.new, { cwd: root.path, mcpServers: [] });
      model.server.script({ type: 'stream', parts: Array.from({ length: 200 }, (_, i) => ({ text: `part ${i} ` })), delayMs: 20 });
      void a.c.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'stream a lot' }] }).catch(() => undefined);
      await waitFor('twenty streamed chunks', () => a.c.updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk').length >= 20);
      a.child.kill('SIGKILL');
      await a.exited;
      const textsOf = (c: Client) => c.updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk').map((n) => (n.update as { content: { text: string } }).content.text);
      const seen = textsOf(a.c);

      const b = spawnAgent(dir);
      try {
        await initialize(b.c);
        await b.c.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root.path, mcpServers: [] });
        const replayed = textsOf(b.c);
        // Each update is written before any client is sent it: the log holds at least what the client saw.
        assert.ok(replayed.length >= seen.length + 1, `replayed ${replayed.length} chunks (with the interruption notice), the client had seen ${seen.length} before the kill`);
        assert.deepEqual(replayed, seen.slice(0, replayed.length).concat(replayed.slice(seen.length)), 'what was replayed is what the client saw');
        const replay = await new SessionStore(dir).replay(sessionId);
        assert.equal(replay.lastTurnInterrupted, true);
        model.server.script(reply.text('Back again.'));
        const next = await b.c.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'continue' }] });
        assert.equal(next.stopReason, 'end_turn');
        assert.match(JSON.stringify(model.server.requests.at(-1)!.body.messages), /stream a lot/);
      } finally {
        b.child.stdin!.end();
        b.child.kill('SIGKILL');
        await b.exited;
      }
    } finally {
      root.remove();
      await cleanup();
    }
  });
});

describe('a full disk over ACP', () => {
  test('the turn stops and the prompt fails with the log\'s explanation; the next prompt is refused the same way', { timeout: 120_000 }, async (t) => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtemp, rmdir } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return t.skip('needs root on Linux to mount a tiny tmpfs');
    const disk = await mkdtemp(join(tmpdir(), 'accord-acp-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk], { stdio: 'ignore' });
    } catch {
      await rmdir(disk);
      return t.skip('mounting a tmpfs is not permitted here');
    }
    const server = await startFakeModelServer();
    const root = tempDir('accord-acp-full-root-');
    const config = tempDir('accord-acp-full-config-');
    try {
      const env = isolatedEnv({ ACCORD_MODEL: `openai-compatible:${server.baseUrl}#fake` }, config.path);
      const { app, closeLogs } = createLoggedAgent({ env, tools: builtinTools(), commands: new ProcessRunner(), maxRetries: 0 }, new SessionStore(disk));
      const c = inMemory(app);
      await initialize(c);
      const { sessionId } = await c.connection.agent.request(methods.agent.session.new, { cwd: root.path, mcpServers: [] });
      server.script({ type: 'stream', parts: Array.from({ length: 2000 }, (_, i) => ({ text: `${i} `.padEnd(120, '~') })), delayMs: 1 });
      const failure = await c.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'fill it' }] }).then(
        () => undefined,
        (error: { code?: number; message?: string }) => error,
      );
      assert.equal(failure?.code, -32603);
      assert.match(failure?.message ?? '', /Could not write the session log .*disk or quota is full/);
      const streamed = c.updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk').length;
      assert.ok(streamed < 2000, `the turn stopped early (${streamed} of 2000 chunks went out)`);
      const again = await c.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'again' }] }).then(
        () => undefined,
        (error: { message?: string }) => error.message,
      );
      assert.match(again ?? '', /disk or quota is full/);
      c.close();
      await closeLogs();
      const seqs: number[] = [];
      for await (const { record } of new SessionStore(disk).read(sessionId)) seqs.push(record.seq);
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), 'the log holds only complete records, in order');
    } finally {
      await server.close();
      root.remove();
      config.remove();
      execFileSync('umount', [disk]);
      await rmdir(disk);
    }
  });
});
