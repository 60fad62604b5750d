// What the extension takes from an agent's `_meta["accord/permission"]`:
// only a short string id marks a request as durable (anything else is an
// ordinary request that times out and declines), and the answer's `_meta`
// carries exactly the id and the chosen option back.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { durableAnswerMeta, durableRequestId } from '../../../extension/approvals/durableAnswers';

describe('durable approval ids from the agent', () => {
  test('a request carrying the agent id is durable; the answer meta names it and the option', () => {
    assert.equal(durableRequestId({ _meta: { 'accord/permission': { requestId: 'perm_1' } } }), 'perm_1');
    assert.deepEqual(durableAnswerMeta('perm_1', 'allow_once'), { 'accord/permission': { requestId: 'perm_1', optionId: 'allow_once' } });
  });

  test('attack: hostile or malformed meta never makes a request durable', () => {
    const hostile: unknown[] = [
      undefined,
      null,
      'accord/permission',
      { 'accord/permission': null },
      { 'accord/permission': 'perm_1' },
      { 'accord/permission': { requestId: 42 } },
      { 'accord/permission': { requestId: '' } },
      { 'accord/permission': { requestId: { toString: () => 'perm_1' } } },
      { 'accord/permission': { requestId: 'x'.repeat(201) } },
      { 'accord/permission': [{ requestId: 'perm_1' }] },
      { other: { requestId: 'perm_1' } },
    ];
    for (const meta of hostile) {
      assert.equal(durableRequestId({ _meta: meta as never }), undefined, JSON.stringify(meta));
    }
  });
});
