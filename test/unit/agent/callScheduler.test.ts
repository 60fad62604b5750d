// The scheduler against a reference model: whatever the calls and however
// long each takes, conflicting calls never overlap and keep the model's order,
// and every call finishes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CallScheduler, claimsFor, conflicts } from '../../../agent/core/callScheduler';
import type { ToolKind } from '../../../agent/tools/tool';

const kinds: ToolKind[] = ['read', 'search', 'edit', 'delete', 'move', 'execute', 'think', 'other'];
const paths = ['/w/a.txt', '/w/b.txt', '/w', '/w/sub/c.txt', '/w/sub'];

/** The reference: two calls must not overlap when they touch a common path and one writes, or one is a command or unknown tool. */
function mustSerialize(a: { kind: ToolKind; paths: string[] }, b: { kind: ToolKind; paths: string[] }): boolean {
  const writes = (k: ToolKind) => k === 'edit' || k === 'delete' || k === 'move';
  const exclusiveAll = (c: { kind: ToolKind; paths: string[] }) => c.kind === 'execute' || c.kind === 'other' || (writes(c.kind) && c.paths.length === 0);
  if (exclusiveAll(a) || exclusiveAll(b)) return true;
  if (!writes(a.kind) && !writes(b.kind)) return false;
  const within = (x: string, y: string) => x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
  return a.paths.some((p) => b.paths.some((q) => within(p, q)));
}

const yieldTimes = (n: number) => Array.from({ length: n }).reduce<Promise<void>>((p) => p.then(() => new Promise((r) => setImmediate(r))), Promise.resolve());

describe('call scheduler', () => {
  test('reads share, writes to one path exclude each other, a command excludes everything', () => {
    const read = claimsFor('read', ['/w/a.txt']);
    const readDir = claimsFor('search', ['/w']);
    const edit = claimsFor('edit', ['/w/a.txt']);
    const editOther = claimsFor('edit', ['/w/b.txt']);
    const command = claimsFor('execute', []);
    assert.equal(conflicts(read, claimsFor('read', ['/w/a.txt'])), false);
    assert.equal(conflicts(read, edit), true);
    assert.equal(conflicts(readDir, edit), true, 'a search of a folder waits for a write inside it');
    assert.equal(conflicts(edit, editOther), false);
    assert.equal(conflicts(command, read), true);
    assert.equal(conflicts(command, command), true);
    assert.equal(conflicts(claimsFor('other', []), read), true, 'an MCP tool may touch anything');
  });

  test('property: conflicting calls never overlap and run in order; every call finishes', async () => {
    const call = fc.record({
      kind: fc.constantFrom(...kinds),
      paths: fc.subarray(paths, { maxLength: 2 }),
      work: fc.integer({ min: 0, max: 5 }),
      skipsAdmit: fc.nat(4).map((n) => n === 0),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 8 }), async (calls) => {
        const scheduler = new CallScheduler(calls.length);
        const running = new Set<number>();
        const started: number[] = [];
        const overlaps: Array<[number, number]> = [];
        await Promise.all(
          calls.map(async (c, index) => {
            try {
              if (c.skipsAdmit) return; // a call with bad input never reaches admit
              await scheduler.admit(index, claimsFor(c.kind, c.paths));
              for (const other of running) overlaps.push([other, index]);
              running.add(index);
              started.push(index);
              await yieldTimes(c.work);
              running.delete(index);
            } finally {
              scheduler.done(index);
            }
          }),
        );
        for (const [a, b] of overlaps) {
          const x = calls[a]!;
          const y = calls[b]!;
          assert.ok(!mustSerialize(x, y), `calls ${a} (${x.kind} ${x.paths}) and ${b} (${y.kind} ${y.paths}) overlapped`);
        }
        const ran = calls.map((c, i) => ({ ...c, i })).filter((c) => !c.skipsAdmit);
        for (const a of ran) {
          for (const b of ran) {
            if (a.i < b.i && mustSerialize(a, b)) assert.ok(started.indexOf(a.i) < started.indexOf(b.i), `call ${a.i} must start before ${b.i}`);
          }
        }
        assert.equal(started.length, ran.length);
      }),
      { numRuns: 300 },
    );
  });
});
