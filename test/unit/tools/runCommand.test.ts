import { describe, test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { OutputTail } from '../../../agent/exec/outputTail';
import { OutputHeadTail } from '../../../agent/exec/outputHeadTail';
import { commandEnv } from '../../../agent/exec/commandEnv';
import { ProcessRunner } from '../../../agent/exec/processRunner';
import { MAX_OUTPUT_BYTES, runCommand } from '../../../agent/tools/runCommand';
import { call, context, makeSandbox, type Sandbox } from './fixtures';
import { pidAlive } from '../../support/pidAlive';
import { waitFor } from '../../support/waitFor';

const node = process.execPath;
const execFileAsync = promisify(execFile);
let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(() => box.cleanup());

async function untilGone(pid: number): Promise<void> {
  await waitFor(`process ${pid} to be gone`, () => !pidAlive(pid));
}

describe('run_command', () => {
  test('runs argv in the root, reports exit code 0 and the output', async () => {
    const { ctx } = context(box.root);
    const result = await call(runCommand, { argv: [node, '-e', 'console.log(process.cwd()); console.error("to stderr")'] }, ctx);
    assert.equal(result.isError, undefined);
    assert.equal(result.forModel, `Exit code 0.\n${box.root}\nto stderr\n`);
  });

  test('the effect is the exact argv, resolved cwd, env additions and timeout', async () => {
    await mkdir(path.join(box.root, 'pkg'));
    const { ctx } = context(box.root);
    const input = runCommand.input.parse({ argv: ['npm', 'test'], cwd: 'pkg', env: { CI: '1' }, timeout_ms: 5000 });
    assert.deepEqual(await runCommand.effect(input, ctx), {
      type: 'command',
      command: { argv: ['npm', 'test'], cwd: path.join(box.root, 'pkg'), envChanges: { CI: '1' }, timeoutMs: 5000 },
    });
  });

  test('the title shows every argument, with control characters made visible', () => {
    const { ctx } = context(box.root);
    const input = runCommand.input.parse({ argv: ['git', 'status', 'x\rrm -rf ~', 'two words', 'a\nb'] });
    assert.equal(runCommand.describe(input, ctx).title, 'git status "x\\rrm -rf ~" "two words" "a\\nb"');
  });

  test('no shell: $VARS, && and globs reach the program literally', async () => {
    const { ctx } = context(box.root);
    const result = await call(runCommand, { argv: [node, '-e', 'console.log(JSON.stringify(process.argv.slice(1)))', '$HOME && rm -rf *', '*.ts'] }, ctx);
    assert.equal(result.forModel, 'Exit code 0.\n["$HOME && rm -rf *","*.ts"]\n');
  });

  test('a non-zero exit code is a failed result that says the code', async () => {
    const { ctx } = context(box.root);
    const result = await call(runCommand, { argv: [node, '-e', 'console.log("boom"); process.exit(3)'] }, ctx);
    assert.equal(result.isError, true);
    assert.equal(result.forModel, 'Exit code 3.\nboom\n');
  });

  test('streams output to progress while the command is still running', async () => {
    const { ctx, progress } = context(box.root);
    const gate = path.join(box.root, 'go');
    // The command waits until the test has seen its first line, which only streaming can deliver.
    const script = `console.log("first"); const fs = require("fs"); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(gate)})) { clearInterval(t); console.log("second"); } }, 10);`;
    const streaming: typeof ctx = { ...ctx, progress: (text) => { progress.push(text); if (text.includes('first')) void writeFile(gate, ''); } };
    const result = await call(runCommand, { argv: [node, '-e', script] }, streaming);
    assert.equal(result.forModel, 'Exit code 0.\nfirst\nsecond\n');
    assert.ok(progress.join('').startsWith('first\n'));
  });

  test('environment: additions apply, the agent\'s credentials are scrubbed', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test-secret';
    process.env.ACCORD_MODEL = 'anthropic:x';
    try {
      const { ctx } = context(box.root);
      const script = 'console.log([process.env.GREETING, process.env.ANTHROPIC_API_KEY ?? "absent", process.env.ACCORD_MODEL ?? "absent", process.env.PATH ? "path" : "nopath"].join(","))';
      const result = await call(runCommand, { argv: [node, '-e', script], env: { GREETING: 'hi' } }, ctx);
      assert.equal(result.forModel, 'Exit code 0.\nhi,absent,absent,path\n');
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.ACCORD_MODEL;
    }
    assert.deepEqual(commandEnv({ OPENAI_API_KEY: 'x', GITHUB_TOKEN: 'y', AWS_SECRET_ACCESS_KEY: 'z', HOME: '/h' }, {}), { HOME: '/h' });
  });

  test('a timeout kills the command and says so', async () => {
    const { ctx } = context(box.root);
    // The command never ends by itself; whether it printed before the kill depends on load, so only the status is checked.
    const result = await call(runCommand, { argv: [node, '-e', 'setInterval(() => {}, 1000)'], timeout_ms: 300 }, ctx);
    assert.equal(result.isError, true);
    assert.equal(result.forModel, 'Timed out after 300 ms and was killed (SIGTERM).\n(no output)');
  });

  test('abort kills the whole process group (child and the grandchild it spawned) and rethrows', { timeout: 60_000 }, async () => {
    const { ctx, controller } = context(box.root);
    const script = `const c = require("child_process").spawn("sleep", ["1000"], { stdio: "inherit" }); console.log("pids " + process.pid + " " + c.pid); setInterval(() => {}, 1000);`;
    let pids: number[] = [];
    const watching: typeof ctx = {
      ...ctx,
      progress: (text) => {
        const found = /pids (\d+) (\d+)/.exec(text);
        if (found) {
          pids = [Number(found[1]), Number(found[2])];
          controller.abort();
        }
      },
    };
    await assert.rejects(call(runCommand, { argv: [node, '-e', script] }, watching), (error: Error) => error.name === 'AbortError');
    assert.equal(pids.length, 2);
    for (const pid of pids) await untilGone(pid);
  });

  test('a process that ignores SIGTERM is SIGKILLed after the grace period', async () => {
    const { ctx, controller } = context(box.root);
    const stubborn = { ...ctx, commands: new ProcessRunner(200), progress: (text: string) => text.includes('ready') && controller.abort() };
    const outcome = await stubborn.commands.run([node, '-e', 'process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)'], {
      cwd: box.root, envChanges: {}, timeoutMs: 600_000, signal: controller.signal, onOutput: stubborn.progress, maxOutputBytes: 1000,
    });
    assert.equal(outcome.signal, 'SIGKILL');
  });

  test('a command that leaves a background process behind still finishes', { timeout: 60_000 }, async () => {
    const { ctx } = context(box.root);
    const script = `require("child_process").spawn("sleep", ["1000"], { stdio: "inherit" }).unref(); console.log("done");`;
    const result = await call(runCommand, { argv: [node, '-e', script] }, ctx);
    assert.equal(result.forModel, 'Exit code 0.\ndone\n');
  });

  test('long output keeps its start and its end, each cut at a character boundary, with a marker between', async () => {
    const { ctx } = context(box.root);
    // 3-byte characters: both cuts fall inside one unless aligned.
    const script = `process.stdout.write("HEAD" + "€".repeat(20000) + "TAIL")`;
    const result = await call(runCommand, { argv: [node, '-e', script] }, ctx);
    const [status, ...rest] = result.forModel.split('\n');
    assert.equal(status, 'Exit code 0.');
    const output = rest.join('\n');
    assert.ok(output.startsWith('HEAD€'));
    assert.ok(output.endsWith('€TAIL'));
    assert.match(output, /\[… [\d,]+ bytes of output omitted \(60,008 in all\); the start and the end are shown …\]/);
    assert.ok(!output.includes('\uFFFD'), 'no broken character at either cut');
    const kept = output.replace(/\n\[…[^\]]*\]\n/, '');
    assert.ok(Buffer.byteLength(kept) <= MAX_OUTPUT_BYTES);
    assert.ok(Buffer.byteLength(kept) > MAX_OUTPUT_BYTES - 6);
  });

  test('cwd outside the workspace, through a symlink, or missing is refused; bad env names too', async () => {
    await symlink(box.outside, path.join(box.root, 'out'));
    const { ctx } = context(box.root);
    for (const [input, pattern] of [
      [{ argv: ['ls'], cwd: '..' }, /outside the workspace/],
      [{ argv: ['ls'], cwd: 'out' }, /outside the workspace/],
      [{ argv: ['ls'], cwd: '/' }, /outside the workspace/],
      [{ argv: ['ls'], cwd: 'missing' }, /does not exist or is not a directory/],
      [{ argv: ['ls'], env: { 'A=B': 'x' } }, /not a valid environment variable name/],
      [{ argv: [''] }, /argv\[0\] is empty/],
      [{ argv: ['no-such-program-accord-test'] }, /no such program on PATH/],
    ] as const) {
      const result = await call(runCommand, input, ctx);
      assert.equal(result.isError, true, JSON.stringify(input));
      assert.match(result.forModel, pattern);
    }
  });
});

describe('OutputHeadTail', () => {
  test('under the cap everything is kept, even a character split between head and tail', () => {
    const kept = new OutputHeadTail(40); // a 10-byte head
    kept.push('aaaaaaaaa');
    kept.push('€b'); // the head ends one byte into the €
    assert.equal(kept.truncated, false);
    assert.equal(kept.text, 'aaaaaaaaa€b');
  });

  test('over the cap: head, marker with the omitted count, tail; memory stays at the cap', () => {
    const kept = new OutputHeadTail(40);
    for (let i = 0; i < 10_000; i += 1) kept.push(`line ${i}\n`);
    assert.match(kept.text, /^line 0\nlin\n\[…/);
    assert.match(kept.text, /line 9999\n$/);
    assert.match(kept.text, /\[… [\d,]+ bytes of output omitted/);
    assert.equal(kept.omitted + 40, [...Array(10_000).keys()].reduce((n, i) => n + `line ${i}\n`.length, 0));
  });
});

describe('OutputTail', () => {
  test('drops from the front and never starts mid-character (4-byte emoji)', () => {
    const tail = new OutputTail(10);
    tail.push('😀😀😀'); // 12 bytes: the cut lands 2 bytes into the first emoji
    assert.equal(tail.text, '😀😀');
    assert.equal(tail.truncated, true);
    tail.push('ab');
    assert.equal(tail.text, '😀😀ab');
  });

  test('keeps everything under the cap', () => {
    const tail = new OutputTail(100);
    tail.push('héllo ');
    tail.push('wörld');
    assert.equal(tail.text, 'héllo wörld');
    assert.equal(tail.truncated, false);
  });
});

describe('ProcessRunner and the agent process', () => {
  test('commands still running when the agent exits are killed with it', { timeout: 120_000 }, async () => {
    // The stand-in agent starts a command that never ends, prints the command's pid, and exits.
    const { stdout } = await execFileAsync(node, ['--import', 'tsx', path.join(import.meta.dirname, 'exitingAgent.ts'), box.root], { encoding: 'utf8' });
    const pid = Number(stdout.trim());
    assert.ok(pid > 0, stdout);
    await untilGone(pid);
  });
});
