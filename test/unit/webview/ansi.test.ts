import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ansiSegments, MAX_SEGMENTS, stripAnsi } from '../../../webview/render/ansi';

describe('terminal output in the tool card (ANSI)', () => {
  test('colours become segments with the basic palette; reset ends them', () => {
    assert.deepEqual(ansiSegments('a\x1b[31mred\x1b[0m b \x1b[1;92mok\x1b[m'), [
      { text: 'a' },
      { text: 'red', fg: 1 },
      { text: ' b ' },
      { text: 'ok', fg: 10, bold: true },
    ]);
  });

  test('256 and true colour arguments are skipped, not read as other codes', () => {
    assert.deepEqual(ansiSegments('\x1b[38;5;196;1mx\x1b[38;2;1;2;3my'), [{ text: 'xy', bold: true }]);
  });

  test('a progress bar rewritten with carriage returns shows its last state', () => {
    assert.equal(stripAnsi('10%\r50%\r100%\ndone\r\n'), '100%\ndone\n');
    assert.equal(stripAnsi('abc\b\bX'), 'aX');
  });

  test('attack: OSC titles and hyperlinks, cursor moves, DCS and C1 controls never reach the text', () => {
    const hostile = '\x1b]0;pwned title\x07\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\x1b[2J\x1b[10;10H\x1bPq#0;2;0;0;0\x1b\\\x9b31mafter\x07\x00';
    const text = stripAnsi(hostile);
    assert.equal(text, 'clickafter');
    for (const s of ansiSegments(hostile)) assert.doesNotMatch(s.text, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });

  test('too many colour changes fall back to plain text', () => {
    const many = Array.from({ length: MAX_SEGMENTS + 10 }, (_, i) => `\x1b[3${i % 8}mx`).join('');
    const segments = ansiSegments(many);
    assert.equal(segments.length, 1);
    assert.equal(segments[0]?.text, 'x'.repeat(MAX_SEGMENTS + 10));
  });

  test('property: segments carry the same text as stripAnsi, and no control character survives', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('\x1b[31m', '\x1b[0m', '\x1b[1m', '\x1b]0;t\x07', '\x1b[2K', '\n', '\x07', '\x1b', '\x9b'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const raw = parts.join('').replace(/\r/g, ''); // CR rewrites may cross colours; the plain reading is the reference there
        const joined = ansiSegments(raw).map((s) => s.text).join('');
        assert.doesNotMatch(joined, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
        if (!raw.includes('\b')) assert.equal(joined, stripAnsi(raw));
      }),
    );
  });
});
