// ACP prompt blocks as the model's user message: an image is base64 data
// only; a string the model SDK would take for a link (and fetch) is not an image.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toUserContent } from '../../../agent/acp/prompt';

test('an image with base64 data reaches the model as an image', () => {
  const data = Buffer.from('\x89PNG\r\n\x1a\n').toString('base64');
  assert.deepEqual(toUserContent([{ type: 'image', data, mimeType: 'image/png' }]), [{ type: 'image', image: data, mediaType: 'image/png' }]);
});

test('attack: image "data" that is a URL (http, file, data:) never reaches the model as something to fetch', () => {
  for (const data of ['http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd', 'https://example.com/x.png', 'data:image/png;base64,AAAA']) {
    const [part] = toUserContent([{ type: 'image', data, mimeType: 'image/png' }]);
    assert.deepEqual(part, { type: 'text', text: '[an image that was not base64 data: not shown]' }, data);
  }
});
