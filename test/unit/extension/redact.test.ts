import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { REDACTED, redact, redactText } from '../../../extension/traffic/redact';

describe('traffic redaction', () => {
  test('secret-named keys and env pairs', () => {
    const out = redact({ params: { apiKey: 'abc', env: [{ name: 'OPENAI_API_KEY', value: 'v' }, { name: 'PATH', value: '/bin' }], headers: { Authorization: 'x' } } });
    assert.deepEqual(out, { params: { apiKey: REDACTED, env: [{ name: 'OPENAI_API_KEY', value: REDACTED }, { name: 'PATH', value: '/bin' }], headers: { Authorization: REDACTED } } });
  });

  test('key-shaped strings anywhere', () => {
    const text = redactText('use sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA and ghp_abcdefghijklmnopqrstuvwx now');
    assert.equal(text, `use ${REDACTED} and ${REDACTED} now`);
  });

  test('exact secrets the extension knows', () => {
    assert.deepEqual(redact({ text: 'token is my-own-secret-123 ok' }, ['my-own-secret-123']), { text: `token is ${REDACTED} ok` });
  });

  test('ordinary content is untouched', () => {
    const v = { method: 'session/prompt', params: { prompt: [{ type: 'text', text: 'fix the tokenizer' }] } };
    assert.deepEqual(redact(v), v);
  });
});
