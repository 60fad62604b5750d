// DaemonLink's life as a process's would be, for any order of what can
// happen to it: the client sends lines, ends its input, or kills it; the
// daemon closes the connection. A scripted daemon (it welcomes, echoes each
// line, and closes when the client ends) stands behind a private socket.
// Whatever the order: 'exit' comes exactly once, with the status of the first
// thing that ended the link; every line sent before that came back, in
// order; stdout and stderr are ended; and nothing after it changes anything.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { DaemonLink } from '../../../extension/agents/daemonLink';
import { tempDir } from '../agent/harness';
import { waitFor } from '../../support/waitFor';

const dir = tempDir('accord-link-prop-');
after(() => dir.remove());

type Step = { kind: 'send'; text: string } | { kind: 'endInput' } | { kind: 'kill' } | { kind: 'daemonCloses' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('send' as const), text: fc.string({ maxLength: 20 }).map((t) => t.replace(/\n/g, ' ')) }), weight: 4 },
  fc.constant({ kind: 'endInput' as const }),
  fc.constant({ kind: 'kill' as const }),
  fc.constant({ kind: 'daemonCloses' as const }),
);

let runs = 0;

/** Listening (a 0600 socket, as the daemon's) before it returns. */
async function scriptedDaemon(path: string) {
  let connection: Socket | undefined;
  let accepted!: (socket: Socket) => void;
  const connected = new Promise<Socket>((resolve) => (accepted = resolve));
  const server = createServer((socket) => {
    connection = socket;
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    let buffered = '';
    let welcomed = false;
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!welcomed) {
          welcomed = true;
          socket.write(`${JSON.stringify({ accord: 'welcome', version: '1.0.0', pid: 1 })}\n`);
        } else socket.write(`${line}\n`);
      }
    });
    socket.on('end', () => socket.end());
    accepted(socket);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chmodSync(path, 0o600);
  return { connected, destroy: () => connection?.destroy(), close: () => new Promise<void>((done) => server.close(() => done())) };
}

test('whatever happens in whatever order, a link exits once, with the status of what ended it, and loses no line sent before', { timeout: 120_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
      const run = join(dir.path, `r${runs++}`);
      mkdirSync(run, { mode: 0o700 });
      const path = join(run, 'd.sock');
      const daemon = await scriptedDaemon(path);
      const link = new DaemonLink({ command: process.execPath, args: ['/nonexistent/agent.js', 'acp', '--daemon', path], env: {} }, { version: '1.0.0' });
      const exits: Array<[number | null, NodeJS.Signals | null]> = [];
      link.on('exit', (code, signal) => exits.push([code, signal]));
      const exited = new Promise<void>((resolve) => link.once('exit', () => resolve()));
      let echoed = '';
      link.stdout.setEncoding('utf8');
      link.stdout.on('data', (chunk: string) => (echoed += chunk));
      let stderr = '';
      link.stderr.setEncoding('utf8');
      link.stderr.on('data', (chunk: string) => (stderr += chunk));
      const stdoutEnded = new Promise<void>((resolve) => link.stdout.once('end', () => resolve()));
      await daemon.connected;

      const sent: string[] = [];
      let expected: [number | null, NodeJS.Signals | null] | undefined;
      let inputEnded = false;
      for (const s of steps) {
        if (expected) {
          // Already ended: nothing may change what was reported.
          if (s.kind === 'kill') assert.equal(link.kill(), false);
          continue;
        }
        if (s.kind === 'send') {
          if (inputEnded) continue;
          sent.push(s.text);
          link.stdin.write(`${s.text}\n`);
          const want = sent.map((t) => `${t}\n`).join('');
          await waitFor('the line to come back', () => echoed === want, 10_000, 1);
        } else if (s.kind === 'endInput') {
          if (inputEnded) continue;
          inputEnded = true;
          link.stdin.end();
          expected = [0, null];
          await exited;
        } else if (s.kind === 'kill') {
          assert.equal(link.kill(), true);
          expected = [null, 'SIGTERM'];
          await exited;
        } else {
          daemon.destroy();
          expected = [1, null];
          await exited;
        }
      }
      if (!expected) {
        link.kill();
        expected = [null, 'SIGTERM'];
        await exited;
      }
      await stdoutEnded;
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(exits, [expected], 'exactly one exit, with the status of what ended the link');
      assert.equal(echoed, sent.map((t) => `${t}\n`).join(''), 'every line sent before the end came back, in order');
      assert.equal(link.stderr.readableEnded || link.stderr.writableEnded, true);
      // Closed before its welcome: the hello's write or read failed (EPIPE, reset, or an end before the first line).
      if (expected[0] === 1) assert.match(stderr, /the daemon closed the connection|no welcome from the daemon at /);
      else assert.equal(stderr, '');
      await daemon.close();
    }),
    { numRuns: 40 },
  );
});
