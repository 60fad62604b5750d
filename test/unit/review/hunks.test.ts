import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  composeText,
  computeHunks,
  decodeText,
  hunkKey,
  hunkLayout,
  isBinary,
  lineCounts,
  revertHunks,
  splitLines,
} from '../../../extension/review/hunks';
import { merge3 } from '../../../extension/review/merge3';

const base = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'].map((l) => l + '\n').join('');
// Three separate hunks: a change on line 2, an insertion after line 5, a deletion of line 8.
const proposed = ['one', 'TWO', 'three', 'four', 'five', 'five and a half', 'six', 'seven', 'nine']
  .map((l) => l + '\n')
  .join('');

describe('hunks', () => {
  test('splitLines keeps each terminator and a last line without one', () => {
    assert.deepEqual(splitLines('a\r\nb\nc'), ['a\r\n', 'b\n', 'c']);
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(splitLines('\n'), ['\n']);
  });

  test('three separate regions give three hunks in order', () => {
    const hunks = computeHunks(base, proposed);
    assert.equal(hunks.length, 3);
    assert.deepEqual(hunks[0], { baseStart: 1, baseLines: ['two\n'], proposedStart: 1, proposedLines: ['TWO\n'] });
    assert.deepEqual(hunks[1], { baseStart: 5, baseLines: [], proposedStart: 5, proposedLines: ['five and a half\n'] });
    assert.deepEqual(hunks[2], { baseStart: 7, baseLines: ['eight\n'], proposedStart: 8, proposedLines: [] });
    assert.deepEqual(lineCounts(hunks), { added: 2, removed: 2 });
  });

  test('accepting hunks 1 and 3 of 3 gives exactly those changes', () => {
    const hunks = computeHunks(base, proposed);
    const text = composeText(base, hunks, new Set([0, 2]));
    assert.equal(text, ['one', 'TWO', 'three', 'four', 'five', 'six', 'seven', 'nine'].map((l) => l + '\n').join(''));
  });

  test('accepting one hunk of three', () => {
    const hunks = computeHunks(base, proposed);
    assert.equal(composeText(base, hunks, new Set([1])), base.replace('five\n', 'five\nfive and a half\n'));
  });

  test('all hunks give the proposed text, none give the base', () => {
    const hunks = computeHunks(base, proposed);
    assert.equal(composeText(base, hunks, new Set([0, 1, 2])), proposed);
    assert.equal(composeText(base, hunks, new Set()), base);
  });

  test('reverting a set undoes exactly those hunks', () => {
    const hunks = computeHunks(base, proposed);
    assert.equal(revertHunks(base, hunks, new Set([0, 1, 2])), base);
    assert.equal(revertHunks(base, hunks, new Set([1])), composeText(base, hunks, new Set([0, 2])));
  });

  test('layout places each hunk in the composed text', () => {
    const hunks = computeHunks(base, proposed);
    assert.deepEqual(hunkLayout(hunks, new Set([0, 1, 2])), [
      { start: 1, lines: 1 },
      { start: 5, lines: 1 },
      { start: 8, lines: 0 },
    ]);
    // With the insertion not chosen, the deletion's region moves up a line.
    assert.deepEqual(hunkLayout(hunks, new Set([0, 2]))[2], { start: 7, lines: 0 });
  });

  test('CRLF text round-trips byte for byte, and a line-ending change is a change', () => {
    const crlfBase = 'a\r\nb\r\nc\r\nd\r\n';
    const crlfProposed = 'a\r\nB\r\nc\r\nD\r\n';
    const hunks = computeHunks(crlfBase, crlfProposed);
    assert.equal(hunks.length, 2);
    assert.equal(composeText(crlfBase, hunks, new Set([1])), 'a\r\nb\r\nc\r\nD\r\n');
    assert.equal(computeHunks('a\r\nb\r\n', 'a\nb\r\n').length, 1);
  });

  test('no trailing newline on either side is kept as it is', () => {
    const hunks = computeHunks('a\nb', 'a\nb\n');
    assert.equal(hunks.length, 1);
    assert.equal(composeText('a\nb', hunks, new Set()), 'a\nb');
    assert.equal(composeText('a\nb', hunks, new Set([0])), 'a\nb\n');
    const appended = computeHunks('x\ny', 'x\ny\nz');
    assert.equal(composeText('x\ny', appended, new Set([0])), 'x\ny\nz');
  });

  test('an added file is one hunk from empty; a deleted file is one hunk to empty', () => {
    const added = computeHunks('', 'new\nfile\n');
    assert.equal(added.length, 1);
    assert.equal(composeText('', added, new Set([0])), 'new\nfile\n');
    const deleted = computeHunks('old\n', '');
    assert.equal(deleted.length, 1);
    assert.equal(composeText('old\n', deleted, new Set([0])), '');
  });

  test('identical texts have no hunks', () => {
    assert.deepEqual(computeHunks(base, base), []);
  });

  test('hunk keys are equal for equal hunks and differ otherwise', () => {
    const [h1] = computeHunks(base, proposed);
    const [again] = computeHunks(base, proposed.replace('nine', 'NINE'));
    assert.equal(hunkKey(h1!), hunkKey(again!));
    const [other] = computeHunks(base, proposed.replace('TWO', 'Two'));
    assert.notEqual(hunkKey(h1!), hunkKey(other!));
  });

  test('binary detection: NUL bytes and invalid UTF-8 are binary; UTF-8 text with a BOM is text', () => {
    assert.equal(isBinary(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00])), true);
    assert.equal(isBinary(new Uint8Array([0x61, 0xff, 0x62])), true);
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('héllo\n')]);
    assert.equal(isBinary(bom), false);
    assert.equal(decodeText(bom), '\ufeffhéllo\n');
    assert.equal(decodeText(new Uint8Array([0, 1, 2])), undefined);
  });
});

describe('merge3', () => {
  const ancestor = 'a\nb\nc\nd\ne\nf\n';

  test('separate edits combine', () => {
    const result = merge3(ancestor, 'A\nb\nc\nd\ne\nf\n', 'a\nb\nc\nd\ne\nF\n');
    assert.deepEqual(result, { clean: true, text: 'A\nb\nc\nd\ne\nF\n' });
  });

  test('adjacent edits combine', () => {
    const result = merge3(ancestor, 'a\nB\nc\nd\ne\nf\n', 'a\nb\nC\nd\ne\nf\n');
    assert.deepEqual(result, { clean: true, text: 'a\nB\nC\nd\ne\nf\n' });
  });

  test('edits to the same line conflict and report both sides', () => {
    const result = merge3(ancestor, 'a\nb\nmine\nd\ne\nf\n', 'a\nb\ntheirs\nd\ne\nf\n');
    assert.equal(result.clean, false);
    assert.ok(!result.clean);
    assert.deepEqual(result.conflicts, [{ ancestorStart: 2, ancestorLines: ['c\n'], ours: ['mine\n'], theirs: ['theirs\n'] }]);
  });

  test('insertions at the same place conflict unless identical', () => {
    assert.equal(merge3(ancestor, 'a\nx\nb\nc\nd\ne\nf\n', 'a\ny\nb\nc\nd\ne\nf\n').clean, false);
    assert.deepEqual(merge3(ancestor, 'a\nx\nb\nc\nd\ne\nf\n', 'a\nx\nb\nc\nd\ne\nF\n'), {
      clean: true,
      text: 'a\nx\nb\nc\nd\ne\nF\n',
    });
  });

  test('an insertion inside a region the other side replaced conflicts', () => {
    assert.equal(merge3(ancestor, 'a\nb\nc\nnew\nd\ne\nf\n', 'a\nb\nCD\ne\nf\n').clean, false);
  });

  test('one side unchanged takes the other', () => {
    assert.deepEqual(merge3(ancestor, ancestor, 'z\n'), { clean: true, text: 'z\n' });
    assert.deepEqual(merge3(ancestor, 'z\n', ancestor), { clean: true, text: 'z\n' });
  });
});
