// warmModel (agent/models/warm.ts): session/new opens the connection to the
// model's endpoint with a keyless GET of /models, and a dead endpoint is
// silently ignored.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { warmModel } from '../../../agent/models/warm';

describe('warming the model connection', () => {
  test('a GET of <endpoint>/models, without the API key, answered and kept alive', async () => {
    const seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders }> = [];
    let arrived!: () => void;
    const request = new Promise<void>((resolve) => (arrived = resolve));
    const server = createServer((req, res) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
      arrived();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      warmModel(`openai-compatible:http://127.0.0.1:${port}/v1#local`, { ACCORD_OPENAI_COMPATIBLE_API_KEY: 'sk-secret-never-sent' });
      await request;
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.method, 'GET');
      assert.equal(seen[0]!.url, '/v1/models');
      assert.equal(seen[0]!.headers.authorization, undefined);
      assert.doesNotMatch(JSON.stringify(seen[0]!.headers), /sk-secret/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('no model, or an endpoint nobody listens on: nothing thrown, nothing unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      warmModel(undefined, {});
      warmModel('openai-compatible:http://127.0.0.1:1/v1#none', {});
      warmModel('not a model id', {});
      // Give the failed attempts time to settle; the assertion is on absence of errors, not on timing.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
