// One process of chatModelStream.bench.ts: load one model, call doStream CALLS times, print the timings.
import type { LanguageModelV3 } from '@ai-sdk/provider';

async function main(): Promise<void> {
  const [which, baseURL, calls] = process.argv.slice(2) as ['sdk' | 'lean', string, string];
  const loadAt = performance.now();
  const { modelFetch } = await import('../agent/models/http/modelFetch');
  const fetch = modelFetch as unknown as typeof globalThis.fetch;
  let model: LanguageModelV3;
  if (which === 'sdk') {
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
    model = createOpenAICompatible({ name: 'local', baseURL, includeUsage: true, fetch }).chatModel('bench');
  } else {
    const { leanChatModel } = await import('../agent/models/chat/chatModel');
    model = leanChatModel('bench', { name: 'local', baseURL, includeUsage: true, fetch, sdkModel: () => Promise.reject(new Error('not used')) });
  }
  const load = performance.now() - loadAt;

  async function call() {
    const started = performance.now();
    let firstDelta = 0;
    const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'stream' }] }] });
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'text-delta' && !firstDelta) firstDelta = performance.now() - started;
    }
    return { firstDelta, end: performance.now() - started };
  }

  const first = await call();
  let warm = first;
  for (let i = 1; i < Number(calls); i++) warm = await call();
  process.stdout.write(JSON.stringify({ load, first, warm }));
  process.exit(0);
}

void main();
