// `clip` is how the panel shows agent labels (tool titles, paths, file names
// in the Changes list). lit escapes markup, but not the characters that
// reorder or hide text: an override in a title or a path must not reach the
// person as one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clip } from '../../../webview/render/longText';

test('ordinary labels are unchanged; long ones keep both ends', () => {
  assert.equal(clip('Edit src/a.ts'), 'Edit src/a.ts');
  assert.equal(clip('x'.repeat(50) + 'y'.repeat(50), 20), 'xxxxxxxxxx…yyyyyyyyyy');
});

test('attack: bidi overrides, isolates and zero-width characters in a tool title or path show as escapes', () => {
  const title = 'Read evil\u202Etxt.sh\u2066 \u200Bsafe\u2069';
  const shown = clip(title);
  assert.doesNotMatch(shown, /[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/u, JSON.stringify(shown));
  assert.equal(shown, 'Read evil\\u202Etxt.sh\\u2066 \\u200Bsafe\\u2069');
});
