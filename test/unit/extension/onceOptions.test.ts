import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { PermissionOption } from '@agentclientprotocol/sdk';
import { answerCancelled, answerDeclined, answerSelected, endsTurn, isOnceOption, onceChoices } from '../../../extension/approvals/onceOptions';

const opt = (optionId: string, kind: PermissionOption['kind'], name = optionId): PermissionOption => ({ optionId, kind, name });

describe('once-only permission options', () => {
  test('offers allow_once and reject_once, never the standing options', () => {
    const c = onceChoices([opt('aa', 'allow_always'), opt('a', 'allow_once'), opt('r', 'reject_once'), opt('ra', 'reject_always')]);
    assert.deepEqual(c.buttons.map((b) => [b.label, b.optionId, b.kind]), [
      ['Allow once', 'a', 'allow_once'],
      ['Reject', 'r', 'reject_once'],
    ]);
    assert.equal(c.explanation, undefined);
    assert.equal(isOnceOption(c, 'aa'), undefined);
    assert.equal(isOnceOption(c, 'ra'), undefined);
  });

  test('dismissal and timeout answer reject_once, never allow', () => {
    const c = onceChoices([opt('a', 'allow_once'), opt('r', 'reject_once')]);
    assert.deepEqual(answerDeclined(c), { outcome: { outcome: 'selected', optionId: 'r' } });
  });

  test('only "always" offered: explanation, no allow button, decline with reject_once', () => {
    const c = onceChoices([opt('aa', 'allow_always'), opt('r', 'reject_once')]);
    assert.deepEqual(c.buttons.map((b) => b.optionId), ['r']);
    assert.match(c.explanation ?? '', /standing permission/);
    assert.deepEqual(answerDeclined(c), { outcome: { outcome: 'selected', optionId: 'r' } });
  });

  test('only standing options: the answer is cancelled, not reject_always', () => {
    const c = onceChoices([opt('aa', 'allow_always'), opt('ra', 'reject_always')]);
    assert.deepEqual(c.buttons, []);
    assert.deepEqual(answerDeclined(c), { outcome: { outcome: 'cancelled' } });
  });

  test('unknown option kinds are ignored', () => {
    const c = onceChoices([{ optionId: 'x', kind: '_vendor_thing' as PermissionOption['kind'], name: 'X' }, opt('a', 'allow_once')]);
    assert.deepEqual(c.buttons.map((b) => b.optionId), ['a']);
    assert.deepEqual(answerDeclined(c), { outcome: { outcome: 'cancelled' } });
  });

  test('several allow_once options keep the agent names apart', () => {
    const c = onceChoices([opt('m', 'allow_once', 'Yes, approve edits manually'), opt('p', 'allow_once', 'Yes, plan only'), opt('r', 'reject_once')]);
    assert.deepEqual(c.buttons.map((b) => b.label), ['Allow once: “Yes, approve edits manually”', 'Allow once: “Yes, plan only”', 'Reject']);
  });

  test("an option's name is quoted, one line, short, and never a link", () => {
    const c = onceChoices([opt('a', 'allow_once', '[ok](command:x)\n\nAccord: safe'), opt('b', 'allow_once', 'y'.repeat(500))]);
    assert.deepEqual(c.buttons.map((b) => b.label), ['Allow once: “[ok] (command:x) Accord: safe”', `Allow once: “${'y'.repeat(39)}…”`]);
  });

  test('answers', () => {
    assert.deepEqual(answerSelected({ label: 'Allow once', optionId: 'a', kind: 'allow_once' }), { outcome: { outcome: 'selected', optionId: 'a' } });
    assert.deepEqual(answerCancelled(), { outcome: { outcome: 'cancelled' } });
  });

  test("the mildest reject is the default: codex's turn-ending abort is neither first nor the fallback", () => {
    const c = onceChoices([opt('approved', 'allow_once', 'Yes'), opt('abort', 'reject_once', 'No, and tell Codex what to do differently'), opt('denied', 'reject_once', 'No, continue without running it')]);
    assert.deepEqual(c.buttons.map((b) => [b.label, b.optionId]), [
      ['Allow once', 'approved'],
      ['Reject', 'denied'],
      ['Reject and stop', 'abort'],
    ]);
    assert.deepEqual(answerDeclined(c), { outcome: { outcome: 'selected', optionId: 'denied' } });
  });

  test('a turn-ending reject offered alone is still the way to say no', () => {
    const c = onceChoices([opt('a', 'allow_once'), opt('abort', 'reject_once', 'Abort')]);
    assert.deepEqual(c.buttons.map((b) => b.label), ['Allow once', 'Reject']);
    assert.deepEqual(answerDeclined(c), { outcome: { outcome: 'selected', optionId: 'abort' } });
  });

  test('what ends a turn is told by id or name', () => {
    assert.equal(endsTurn({ optionId: 'abort', name: 'No' }), true);
    assert.equal(endsTurn({ optionId: 'x', name: 'Reject and stop the turn' }), true);
    assert.equal(endsTurn({ optionId: 'reject_once', name: 'Reject' }), false);
    assert.equal(endsTurn({ optionId: 'denied', name: 'No, tell the agent why' }), false);
  });

  test('an unreviewable change relabels the allow button', () => {
    const c = onceChoices([opt('a', 'allow_once'), opt('r', 'reject_once')], { allowLabel: 'Allow anyway' });
    assert.deepEqual(c.buttons.map((b) => b.label), ['Allow anyway', 'Reject']);
  });

  test('attack: 10,000 options become a handful of buttons, the mildest reject still first among rejects and the fallback', () => {
    const many = [
      ...Array.from({ length: 5_000 }, (_, i) => opt(`a${i}`, 'allow_once', `allow ${i}`)),
      ...Array.from({ length: 4_999 }, (_, i) => opt(`abort${i}`, 'reject_once', `abort ${i}`)),
      opt('r', 'reject_once', 'no'),
    ];
    const c = onceChoices(many);
    assert.ok(c.buttons.length <= 6, `${c.buttons.length} buttons`);
    assert.deepEqual(c.buttons.filter((b) => b.kind === 'allow_once').map((b) => b.optionId), ['a0', 'a1', 'a2']);
    assert.equal(c.fallbackReject?.optionId, 'r');
    assert.ok(c.buttons.some((b) => b.optionId === 'r'));
  });

  test('attack: an optionId offered as both an allow and a reject is neither (a "Reject" button must never send an id the agent also calls allow)', () => {
    const c = onceChoices([opt('x', 'allow_once', 'Allow'), opt('x', 'reject_once', 'Reject'), opt('r', 'reject_once')]);
    assert.deepEqual(c.buttons.map((b) => b.optionId), ['r']);
    assert.equal(isOnceOption(c, 'x'), undefined);
    assert.match(c.explanation ?? '', /no way to allow/);
    const same = onceChoices([opt('x', 'allow_once'), opt('x', 'allow_always'), opt('r', 'reject_once')]);
    assert.deepEqual(same.buttons.map((b) => b.optionId), ['r'], 'an id also offered as a standing permission is ambiguous too');
  });
});
