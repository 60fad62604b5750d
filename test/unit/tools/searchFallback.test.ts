// The JavaScript search (no ripgrep) runs the model's pattern in a worker
// thread: a pattern that backtracks without bound is stopped with a clear
// error while the event loop keeps serving everyone else, cancel ends the
// worker, and for ordinary patterns the answer is what a plain scan gives.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { walkFiles } from '../../../agent/tools/fileWalk';
import { liveLineMatchers } from '../../../agent/tools/lineMatcher';
import { createSearchTool } from '../../../agent/tools/search';
import { searchWithJs } from '../../../agent/tools/searchFallback';
import type { SearchMatch, SearchOutcome, SearchQuery } from '../../../agent/tools/searchTypes';
import { call, context, makeSandbox, type Sandbox } from './fixtures';

/** Backtracks exponentially in the length of the run of a's before the "!". */
const CATASTROPHIC = '(a+)+$';
const LONG_LINE = `${'a'.repeat(5_000)}!`;

let box: Sandbox;

before(async () => {
  box = await makeSandbox();
  await mkdir(path.join(box.root, 'trap'));
  await writeFile(path.join(box.root, 'trap', 'long.txt'), `short line\n${LONG_LINE}\n`);
  await mkdir(path.join(box.root, 'xs'));
  await writeFile(path.join(box.root, 'xs', 'xs.txt'), `${'x'.repeat(5_000)}\n`);
  await mkdir(path.join(box.root, 'mixed'));
  await writeFile(path.join(box.root, 'mixed', 'a.txt'), 'xaaa\nnothing here\naa\n');
  await writeFile(path.join(box.root, 'mixed', 'b.txt'), `${LONG_LINE}\n`);
  await writeFile(path.join(box.root, 'mixed', 'c.txt'), 'aaaa\n');
});
after(() => box.cleanup());

function query(target: string, pattern: string, maxMatches = 100): SearchQuery {
  return { root: box.root, target, pattern, caseInsensitive: false, maxMatches };
}

/** Counts event-loop turns while `work` runs: the loop is free if it moved at all. */
async function whileCounting<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const interval = setInterval(() => (ticks += 1), 1);
  try {
    const value = await work();
    return { value, ticks };
  } finally {
    clearInterval(interval);
  }
}

describe('search without ripgrep: the pattern runs in a worker', () => {
  test('attack: a catastrophically backtracking pattern is stopped with a clear error while the event loop keeps turning', { timeout: 120_000 }, async () => {
    const { ctx } = context(box.root);
    const { value: result, ticks } = await whileCounting(() => call(createSearchTool({ ripgrep: false }), { pattern: CATASTROPHIC, path: 'trap' }, ctx));
    assert.equal(result.isError, true);
    assert.match(result.forModel, /search failed: the pattern "\(a\+\)\+\$" backtracks too much \(more than 5 s on trap\/long\.txt\) and was stopped; use a simpler pattern/);
    assert.ok(ticks > 0, 'the event loop was blocked during the search');
    assert.equal(liveLineMatchers(), 0);
  });

  test('attack: another shape, "(x+x+)+y", through ACCORD_SEARCH_NO_RIPGREP=1; the next search still works', { timeout: 120_000 }, async () => {
    const previous = process.env.ACCORD_SEARCH_NO_RIPGREP;
    process.env.ACCORD_SEARCH_NO_RIPGREP = '1';
    try {
      const { ctx } = context(box.root);
      const search = createSearchTool();
      const { value: result, ticks } = await whileCounting(() => call(search, { pattern: '(x+x+)+y', path: 'xs' }, ctx));
      assert.equal(result.isError, true);
      assert.match(result.forModel, /backtracks too much \(more than 5 s on xs\/xs\.txt\)/);
      assert.ok(ticks > 0, 'the event loop was blocked during the search');
      assert.equal((await call(search, { pattern: 'short', path: 'trap' }, ctx)).forModel, 'trap/long.txt:1: short line');
      assert.equal(liveLineMatchers(), 0);
    } finally {
      if (previous === undefined) delete process.env.ACCORD_SEARCH_NO_RIPGREP;
      else process.env.ACCORD_SEARCH_NO_RIPGREP = previous;
    }
  });

  test('attack: matches from files before the stall are kept, with a note that the search stopped early', { timeout: 120_000 }, async () => {
    const outcome = await searchWithJs(query('mixed', CATASTROPHIC), new AbortController().signal, 500);
    assert.deepEqual(outcome.matches, [
      { path: 'mixed/a.txt', line: 1, text: 'xaaa' },
      { path: 'mixed/a.txt', line: 3, text: 'aa' },
    ]);
    assert.equal(outcome.more, false);
    assert.match(outcome.incomplete ?? '', /^stopped early: the pattern "\(a\+\)\+\$" backtracks too much \(more than 0\.5 s on mixed\/b\.txt\)/);
    assert.equal(liveLineMatchers(), 0);
  });

  test('attack: cancelling mid-search ends the search with the abort reason and terminates the worker', { timeout: 120_000 }, async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the person');
    // A deadline far beyond the test: only the abort can end this search.
    const searching = searchWithJs(query('trap', CATASTROPHIC), controller.signal, 3_600_000);
    const outcome = searching.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    while (liveLineMatchers() === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);
    assert.equal(await outcome, reason);
    assert.equal(liveLineMatchers(), 0);
  });

  test('attack: cancelling through the tool rethrows the abort and leaves no worker', { timeout: 120_000 }, async () => {
    const { ctx, controller } = context(box.root);
    const running = call(createSearchTool({ ripgrep: false }), { pattern: CATASTROPHIC, path: 'trap' }, ctx).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    while (liveLineMatchers() === 0) await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error('stop');
    controller.abort(reason);
    assert.equal(await running, reason);
    assert.equal(liveLineMatchers(), 0);
  });

  test('an invalid pattern fails clearly; a folder with no files answers no matches and leaves no worker', async () => {
    const { ctx } = context(box.root);
    const bad = await call(createSearchTool({ ripgrep: false }), { pattern: '(unclosed' }, ctx);
    assert.match(bad.forModel, /not a valid regular expression/);
    await mkdir(path.join(box.root, 'empty'), { recursive: true });
    assert.deepEqual(await searchWithJs(query('empty', 'x'), new AbortController().signal), { matches: [], more: false });
    assert.equal(liveLineMatchers(), 0);
  });

  test('caps at maxMatches exactly: full is not "more", one over is', async () => {
    const signal = new AbortController().signal;
    const exact = await searchWithJs(query('mixed/a.txt', 'a', 2), signal);
    assert.deepEqual(exact, { matches: [{ path: 'mixed/a.txt', line: 1, text: 'xaaa' }, { path: 'mixed/a.txt', line: 3, text: 'aa' }], more: false });
    const over = await searchWithJs(query('mixed/a.txt', 'a', 1), signal);
    assert.deepEqual(over, { matches: [{ path: 'mixed/a.txt', line: 1, text: 'xaaa' }], more: true });
  });
});

/** The search as it ran before the worker: the same walk, a RegExp per line on this thread. */
async function inThreadScan(q: SearchQuery): Promise<SearchOutcome> {
  const regex = new RegExp(q.pattern, q.caseInsensitive ? 'i' : '');
  const matches: SearchMatch[] = [];
  for await (const file of walkFiles(q.root, path.join(q.root, q.target), new AbortController().signal)) {
    const lines = (await readFile(path.join(q.root, file), 'utf8')).split(/\r?\n/);
    for (let index = 0; index < lines.length; index += 1) {
      if (!regex.test(lines[index]!)) continue;
      if (matches.length === q.maxMatches) return { matches, more: true };
      matches.push({ path: file, line: index + 1, text: lines[index]! });
    }
  }
  return { matches, more: false };
}

describe('search without ripgrep: same answers as an in-thread scan', () => {
  const token = fc.constantFrom('a', 'b', 'c', ' ', '.', 'a*', 'b+', 'c?', '[ab]', '[^a]', '\\d', '\\s', '(a|b)', 'ab|c', '\\w+');
  const pattern = fc
    .tuple(fc.boolean(), fc.array(token, { minLength: 1, maxLength: 4 }), fc.boolean())
    .map(([start, tokens, end]) => `${start ? '^' : ''}${tokens.join('')}${end ? '$' : ''}`);
  const line = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1', ' ', 'x'), maxLength: 12 });
  const file = fc.tuple(fc.array(line, { maxLength: 8 }), fc.constantFrom('\n', '\r\n')).map(([lines, eol]) => lines.join(eol));
  const files = fc.uniqueArray(fc.tuple(fc.constantFrom('f1.txt', 'f2.txt', 'sub/f3.txt', 'sub/deeper/f4.txt', 'z.txt'), file), { selector: ([name]) => name, maxLength: 5 });

  test('across many batches (more files than one batch holds), with and without reaching the limit', { timeout: 120_000 }, async () => {
    for (let index = 0; index < 300; index += 1) {
      const name = path.join(box.root, 'many', `d${index % 7}`, `f${String(index).padStart(3, '0')}.txt`);
      await mkdir(path.dirname(name), { recursive: true });
      await writeFile(name, `line ${index}\n${index % 3 === 0 ? 'hit here\r\n' : 'miss\n'}hit ${'x'.repeat(index * 40)}\n`);
    }
    for (const maxMatches of [1, 100, 399, 400, 401, 500]) {
      const q = query('many', 'hit', maxMatches);
      assert.deepEqual(await searchWithJs(q, new AbortController().signal), await inThreadScan(q), `maxMatches ${maxMatches}`);
    }
    assert.equal(liveLineMatchers(), 0);
  });

  test('for random simple patterns, files, case option and limits', { timeout: 300_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(pattern, files, fc.boolean(), fc.integer({ min: 1, max: 12 }), async (source, contents, caseInsensitive, maxMatches) => {
        const target = `prop/${(run += 1)}`;
        for (const [name, text] of contents) {
          await mkdir(path.dirname(path.join(box.root, target, name)), { recursive: true });
          await writeFile(path.join(box.root, target, name), text);
        }
        await mkdir(path.join(box.root, target), { recursive: true });
        const q = { ...query(target, source, maxMatches), caseInsensitive };
        assert.deepEqual(await searchWithJs(q, new AbortController().signal), await inThreadScan(q));
        assert.equal(liveLineMatchers(), 0);
      }),
      { numRuns: 40 },
    );
  });
});
