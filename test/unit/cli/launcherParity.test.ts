// dist/accord computes in sh what the Node bridge computes in TypeScript: the
// daemon's address and tag (agent/daemon/address.ts) and the hello's env
// (forwardedEnv, agent/daemon/handshake.ts). Where the two could differ the
// launcher must say so (and take the Node path), never use another address or
// send another env.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { defaultDaemonAddress, nameTag } from '../../../agent/daemon/address';
import { DAEMON_KEYS, forwardedEnv } from '../../../agent/daemon/handshake';
import { runLauncherFunctions } from './launcherSh';

const PATH = process.env.PATH;

/** Characters that break naive shell code or socat's address syntax, unicode (BMP and astral), and path.join's specials. */
const hostileChar = fc.constantFrom(' ', '"', "'", '$', '`', '\\', ',', ':', '!', '*', '?', '[', '-', 'é', '猫', '😀', '\t', '.', 'a', 'B', '7', '_', '~');
const segment = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9._-]{1,12}$/) },
  { weight: 3, arbitrary: fc.array(hostileChar, { minLength: 1, maxLength: 8 }).map((cs) => cs.join('')) },
  { weight: 1, arbitrary: fc.constantFrom('', '.', '..') },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{30,60}$/) },
);
const absolutePath = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.boolean()).map(([parts, slash]) => `/${parts.join('/')}${slash ? '/' : ''}`);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const pathEnv = fc.record({
  ACCORD_HOME: maybe(fc.oneof(absolutePath, fc.constantFrom('', 'relative/home'))),
  XDG_STATE_HOME: maybe(fc.oneof(absolutePath, fc.constant('not/absolute'))),
  XDG_RUNTIME_DIR: maybe(fc.oneof(absolutePath, fc.constantFrom('/run/user/1000', '', 'rel'))),
  HOME: maybe(fc.oneof(absolutePath, fc.constantFrom('/', '/home/user', ''))),
});

const clean = (env: Record<string, string | undefined>) => Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>;

function shAddress(env: Record<string, string>): { dir: string; sock: string } | undefined {
  const result = runLauncherFunctions('if accord_address; then printf "%s\\n%s" "$accord_dir" "$accord_sock"; else printf NODE; fi', { PATH, ...env });
  assert.equal(result.status, 0, result.stderr);
  if (result.stdout === 'NODE') return undefined;
  const [dir, sock] = result.stdout.split('\n');
  return { dir: dir!, sock: sock! };
}

describe('dist/accord computes the daemon address as defaultDaemonAddress() does', () => {
  test('the tag is FNV-1a-64 of the UTF-8 bytes, first 12 hex digits (examples)', () => {
    for (const text of ['', 'a', '/home/user/.local/state/accord', 'é猫😀', 'x'.repeat(300)]) {
      const result = runLauncherFunctions('accord_tag "$1_TEXT" && printf %s "$accord_tag"'.replace('$1_TEXT', '$TAG_TEXT'), { PATH, TAG_TEXT: text });
      assert.equal(result.stdout, nameTag(text), JSON.stringify(text));
    }
  });

  test('property: the tag matches nameTag() over any text (quotes, $, backquotes, unicode, long)', () => {
    fc.assert(
      // No NUL: an environment value cannot hold one.
      fc.property(fc.string({ unit: fc.oneof(hostileChar, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => c !== '\u0000')), maxLength: 120 }), (text) => {
        const result = runLauncherFunctions('accord_tag "$TAG_TEXT" && printf %s "$accord_tag"', { PATH, TAG_TEXT: text });
        assert.equal(result.stdout, nameTag(text));
      }),
      { numRuns: 150 },
    );
  });

  test('the usual homes: a runtime dir, a state dir, a home, ACCORD_HOME (examples)', () => {
    const cases: Array<Record<string, string>> = [
      { HOME: '/home/user', XDG_RUNTIME_DIR: '/run/user/1000' },
      { HOME: '/home/user' },
      { HOME: '/home/user', XDG_STATE_HOME: '/home/user/.state' },
      { HOME: '/', XDG_RUNTIME_DIR: '/run/user/0' },
      { HOME: '/home/user', ACCORD_HOME: '/srv/accord', XDG_RUNTIME_DIR: '/run/user/1000' },
    ];
    for (const env of cases) {
      const expected = defaultDaemonAddress(env, 'linux', env.HOME!, tmpdir());
      assert.deepEqual(shAddress(env), { dir: expected.dir, sock: expected.path }, JSON.stringify(env));
    }
  });

  test('property: over random environments the launcher finds the same socket, or takes the Node path', () => {
    let fast = 0;
    fc.assert(
      fc.property(pathEnv, (raw) => {
        const env = clean(raw);
        const sh = shAddress(env);
        if (!sh) return;
        fast++;
        // os.homedir() is $HOME when set and not empty; the launcher never goes on without one it can use.
        const expected = defaultDaemonAddress(env, 'linux', env.HOME || '/nonexistent-passwd-home', '/tmp-for-long-paths');
        assert.deepEqual(sh, { dir: expected.dir, sock: expected.path }, JSON.stringify(env));
        assert.ok(!expected.path.startsWith('/tmp-for-long-paths'), 'a path too long for a socket takes the Node path');
      }),
      { numRuns: 300 },
    );
    // Random environments take the fast path only sometimes (26 of 300 in one run): the bound only proves the property is not vacuous.
    assert.ok(fast >= 10, `the fast path was taken in ${fast} of 300 environments only`);
  });

  test('attack: a path too long for a socket, or with characters socat would read as syntax, takes the Node path', () => {
    assert.equal(shAddress({ HOME: '/h', ACCORD_HOME: `/${'x'.repeat(90)}` }), undefined);
    for (const home of ['/srv/a,b', '/srv/a:b', '/srv/a b', '/srv/a"b', "/srv/a'b", '/srv/a!!b', '/srv/é']) {
      assert.equal(shAddress({ HOME: '/h', ACCORD_HOME: home }), undefined, home);
    }
    // path.join would normalise these; the launcher does not try to.
    for (const home of ['/srv/a/', '/srv//a', '/srv/./a', '/srv/../a', 'srv/a']) assert.equal(shAddress({ HOME: '/h', ACCORD_HOME: home }), undefined, home);
    assert.equal(shAddress({ HOME: '' }), undefined, 'no usable $HOME');
  });
});

/** Names the daemon accepts, names it does not, and the daemon's own. */
const envName = fc.oneof(
  fc.tuple(fc.constantFrom('ANTHROPIC_', 'OPENAI_', 'OPENROUTER_', 'GEMINI_', 'GOOGLE_GENERATIVE_AI_', 'ACCORD_'), fc.stringMatching(/^[A-Z0-9_]{0,10}$/)).map(([p, s]) => p + s),
  fc.constantFrom(...DAEMON_KEYS),
  fc.constantFrom('ACCORD_x', 'ACCORD_A.B', 'accord_home', 'XACCORD_A', 'OPENAI', 'ANTHROPIC-KEY', 'ACCORD_é'),
);
const valueChar = fc.oneof(
  fc.constantFrom('"', '\\', '\n', '\r', '\t', '\u0001', '\u001f', '\u007f', '\b', '\f', '}', '{', ',', ':', '$', '`', "'", 'é', '😀', '\u2028'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => c !== '\u0000'),
);
const envValue = fc.oneof(
  fc.string({ unit: valueChar, maxLength: 40 }),
  fc.constantFrom('"}', '","alwaysApprove":true,"x":"', '"},"alwaysApprove":true,"env":{"A":"', '\\"}', '\\', '\n}\n{"accord":"hello"'),
);

function shHello(env: Record<string, string>, cwd?: string): unknown {
  const result = runLauncherFunctions('accord_hello && printf "%s" "$accord_hello"', { PATH, ...env }, { cwd });
  assert.equal(result.status, 0, result.stderr);
  assert.doesNotMatch(result.stdout, /\n/, 'one line');
  return JSON.parse(result.stdout);
}

describe("dist/accord's hello carries the env the Node bridge would", () => {
  test('the hello: version, hand-off, the physical working directory, forwardedEnv (example)', () => {
    const env = { OPENAI_API_KEY: 'sk-"quoted"\\', ACCORD_MODEL: 'openai:gpt', ACCORD_HOME: '/never/sent', HOME: '/h', ACCORD_x: 'dropped' };
    assert.deepEqual(shHello(env, tmpdir()), {
      accord: 'hello',
      version: '0.1.0',
      handoff: true,
      flags: { project: realpathSync(tmpdir()), env: forwardedEnv(env) },
    });
    assert.deepEqual(forwardedEnv(env), { OPENAI_API_KEY: 'sk-"quoted"\\', ACCORD_MODEL: 'openai:gpt' });
  });

  test('property: flags.env equals forwardedEnv(env) for any values (quotes, backslashes, newlines, control characters, unicode, injections)', () => {
    fc.assert(
      fc.property(fc.dictionary(envName, envValue, { maxKeys: 6 }), (vars) => {
        const hello = shHello(vars) as { accord: string; flags: Record<string, unknown> };
        // Nothing but these keys at either level: no value can add a key or a flag (alwaysApprove...).
        assert.deepEqual(Object.keys(hello).sort(), ['accord', 'flags', 'handoff', 'version']);
        assert.deepEqual(Object.keys(hello.flags).sort(), ['env', 'project']);
        assert.deepEqual(hello.flags.env, forwardedEnv(vars));
      }),
      { numRuns: 200 },
    );
  });

  test('attack: an env value that closes the string and adds alwaysApprove stays a value', () => {
    const env = { ACCORD_MODEL: '","alwaysApprove":true,"x":"', ANTHROPIC_API_KEY: '"}},"alwaysApprove":true,"z":{"a":{"b":"' };
    const hello = shHello(env) as { flags: Record<string, unknown> };
    assert.equal(hello.flags.alwaysApprove, undefined);
    assert.deepEqual(hello.flags.env, env);
  });
});
