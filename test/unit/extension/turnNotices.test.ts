// The turn-ended notification's text. The stop reason is agent text: a
// third-party agent's `_accord/turn_ended` carries any string (its schema is
// `z.string()`), and VS Code makes `[label](command:…)` in a notification a
// live link that runs the command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { turnEndedText } from '../../../extension/sessions/turnEndedText';

test('the known stop reasons read as words', () => {
  assert.equal(turnEndedText('Accord', 'end_turn'), 'Accord: “Accord” finished (end turn).');
  assert.equal(turnEndedText('Accord', 'waiting'), 'Accord: “Accord” is waiting for your approval.');
  assert.equal(turnEndedText('Accord', 'error', 'boom'), 'Accord: the turn with “Accord” failed: “boom”');
});

test('attack: a stop reason carrying a command link, newlines and bidi overrides shows as inert one-line text', () => {
  const hostile = 'done](x) [Open settings](command:workbench.action.openSettings?%5B%22accord%22%5D)\n\nAccord: all verified\u202e';
  const text = turnEndedText('evil-agent', hostile);
  assert.doesNotMatch(text, /\]\(/, `a link VS Code would make live: ${text}`);
  assert.doesNotMatch(text, /[\n\u202e]/);
  assert.match(text, /command:workbench/, 'the words are still shown');
  assert.ok(text.length < 200, text);
});
