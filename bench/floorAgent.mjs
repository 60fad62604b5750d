// The floor for `npm run bench`: a dependency-free ACP agent in plain Node.
// It answers initialize and session/new at once and streams one model reply
// (OpenAI chat completions at $FLOOR_MODEL_URL) as agent_message_chunk
// updates. No validation, log or tools: what any Node agent cannot beat.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

async function prompt(id, { sessionId }) {
  const response = await fetch(`${process.env.FLOOR_MODEL_URL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'floor', stream: true, messages: [{ role: 'user', content: 'stream' }] }),
  });
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const bytes of response.body) {
    buffered += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const data = buffered.slice(0, end).replace(/^data: /, '');
      buffered = buffered.slice(end + 2);
      if (data === '[DONE]') continue;
      const text = JSON.parse(data).choices?.[0]?.delta?.content;
      if (text) send({ method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
    }
  }
  send({ id, result: { stopReason: 'end_turn' } });
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (method === 'initialize') send({ id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  else if (method === 'session/new') send({ id, result: { sessionId: randomUUID() } });
  else if (method === 'session/prompt') prompt(id, params).catch((error) => send({ id, error: { code: -32603, message: String(error) } }));
  else if (id !== undefined) send({ id, error: { code: -32601, message: `no method ${method}` } });
});
