// `accord -p` as a real process against the fake model: the reply on stdout,
// NDJSON with --format json, every documented exit status, permission
// requests refused and named unless --always-approve, and model text that
// cannot drive the terminal.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply } from '../../fakeModelServer/index';
import { agentBundle, fakeModelFor, tempDir } from '../agent/harness';
import { ensureBuilt } from '../daemon/fixtures';

before(() => ensureBuilt());

describe('accord -p', () => {
  const model = fakeModelFor('accord-print-config-');
  const dir = tempDir('accord-print-');
  after(() => dir.remove());
  let n = 0;

  function run(args: string[], options: { onStdout?: (text: string, child: ReturnType<typeof spawn>) => void } = {}) {
    const cwd = join(dir.path, `p${n++}`);
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'notes.txt'), 'draft\n');
    const env = { ...model.env(), ACCORD_HOME: join(dir.path, 'home'), ACCORD_SANDBOX: 'off' };
    const child = spawn(process.execPath, [agentBundle, ...args, '--cwd', cwd], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => {
      stdout += c;
      options.onStdout?.(stdout, child);
    });
    child.stderr!.on('data', (c) => (stderr += c));
    return new Promise<{ code: number | null; stdout: string; stderr: string; cwd: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, cwd })));
  }

  test('end_turn: prints the reply, exits 0', { timeout: 60_000 }, async () => {
    model.server.script(reply.text('Hello from the model.'));
    const result = await run(['-p', 'say hello']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Hello from the model.\n');
  });

  test('refusal exits 3; max_tokens (anything else) exits 1', { timeout: 60_000 }, async () => {
    model.server.script(reply.text('I will not.', { finish: 'refusal' }));
    const refusal = await run(['-p', 'do something bad']);
    assert.equal(refusal.code, 3, refusal.stderr);
    assert.match(refusal.stderr, /the turn ended: refusal/);
    model.server.script(reply.text('cut off', { finish: 'length' }));
    const cut = await run(['-p', 'write a novel']);
    assert.equal(cut.code, 1);
    assert.match(cut.stderr, /max_tokens/);
  });

  test('cancelled (SIGINT) exits 130', { timeout: 60_000 }, async () => {
    model.server.script({ type: 'stream', parts: [{ text: 'start ' }, { text: 'never' }], stallAfterParts: 1 });
    let interrupted = false;
    const result = await run(['-p', 'go slowly'], {
      onStdout: (text, child) => {
        if (interrupted || !text.includes('start')) return;
        interrupted = true;
        child.kill('SIGINT');
      },
    });
    assert.equal(result.code, 130, result.stderr);
  });

  test('without --always-approve a permission request is refused and named; with it the change is made', { timeout: 90_000 }, async () => {
    const edit = () => reply.tool('e1', 'edit_file', { path: 'notes.txt', old_string: 'draft', new_string: 'final' });
    model.server.script(edit(), reply.text('Could not edit.'));
    const refused = await run(['-p', 'finish the notes']);
    assert.equal(refused.code, 0);
    assert.match(refused.stderr, /refused ".*notes\.txt.*": it needs approval.*--always-approve/);
    assert.equal(readFileSync(join(refused.cwd, 'notes.txt'), 'utf8'), 'draft\n');
    model.server.script(edit(), reply.text('Edited.'));
    const allowed = await run(['-p', 'finish the notes', '--always-approve']);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.doesNotMatch(allowed.stderr, /refused/);
    assert.equal(readFileSync(join(allowed.cwd, 'notes.txt'), 'utf8'), 'final\n');
  });

  test('--format json prints every update as NDJSON and ends with the stop reason', { timeout: 60_000 }, async () => {
    model.server.script(reply.text('JSON please.'));
    const result = await run(['-p', 'hi', '--format', 'json']);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    assert.ok(lines.some((l) => l.update?.sessionUpdate === 'agent_message_chunk' && l.update.content.text === 'JSON please.'));
    assert.equal(lines.at(-1).stopReason, 'end_turn');
  });

  test('escape sequences in the reply cannot drive the terminal', { timeout: 60_000 }, async () => {
    model.server.script(reply.text('safe\u001b]0;pwned\u0007\u001b[2Jtext'));
    const result = await run(['-p', 'hi']);
    assert.equal(result.code, 0);
    assert.doesNotMatch(result.stdout, /\u001b|\u0007/);
    assert.match(result.stdout, /safe\\u001b\]0;pwned\\u0007\\u001b\[2Jtext/);
  });

  test('no prompt is a usage error (2)', async () => {
    const result = await run(['-p']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /-p needs a value|needs a prompt/);
  });
});
