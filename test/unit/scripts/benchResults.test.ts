// bench/results.ts: what the bench scripts record becomes one table with
// every issue-17 goal, measured or not; a torn line is skipped; a script
// run alone (no ACCORD_BENCH_RESULTS) records nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GOALS, readResults, recordResult, summaryTable } from '../../../bench/results';

function withResultsFile(run: (file: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'accord-bench-results-test-'));
  const saved = process.env.ACCORD_BENCH_RESULTS;
  try {
    run(join(dir, 'results.jsonl'));
  } finally {
    if (saved === undefined) delete process.env.ACCORD_BENCH_RESULTS;
    else process.env.ACCORD_BENCH_RESULTS = saved;
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('bench results', () => {
  test('every goal gets a row: measured ones with their verdict and load, the others "not measured"; other figures follow', () => {
    withResultsFile((file) => {
      process.env.ACCORD_BENCH_RESULTS = file;
      recordResult({ id: 'replay', measured: '612,000 events/s CPU', met: true, load: '1.20' });
      recordResult({ id: 'turn.daemon', measured: '140 ms | a pipe in the text', met: false, load: '1.30' });
      recordResult({ id: 'daemon idle RSS', measured: '120 MiB', load: '1.10' });
      appendFileSync(file, '{"id":"torn'); // a script killed mid-write
      const results = readResults(file);
      assert.equal(results.length, 3);
      const table = summaryTable(results, ['ui (exit 1)']);
      const rows = table.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| goal') && !line.includes('other figures'));
      assert.equal(rows.length, GOALS.length + 1);
      assert.match(table, /\| replay of 50,000 events: ≥ 500,000 events\/s \| 612,000 events\/s CPU \| yes \| 1\.20 \|/);
      assert.match(table, /\| 140 ms \\\| a pipe in the text \| NO \| 1\.30 \|/);
      assert.match(table, /\| view opened → panel "connected": ≤ 1 s \| not measured \|/);
      assert.match(table, /\| daemon idle RSS \| 120 MiB \| – \| 1\.10 \|/);
      assert.match(table, /1 of 2 measured goal figures met; 14 of 16 goals not measured\./);
      assert.match(table, /Failed steps: ui \(exit 1\)\./);
    });
  });

  test('a script run on its own records nothing', () => {
    withResultsFile((file) => {
      delete process.env.ACCORD_BENCH_RESULTS;
      recordResult({ id: 'replay', measured: 'x', met: true });
      assert.equal(existsSync(file), false);
      assert.deepStrictEqual(readResults(file), []);
    });
  });
});
