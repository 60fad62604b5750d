// `npm run bench` cases for the chat panel, in Chromium with the shipped
// (minified) bundle under the real CSP:
//  1. over a loaded 5,000-message session (as issue 17 asks: not an empty
//     panel), stream agent markdown at 200 chunks/s (with a tool call every
//     50 chunks) and report frame times (p50/p95/max) and long frames;
//  2. replay a 5,000-message session and report the time until it is on
//     screen, and then the time to scroll to the top.
import type { CDPSession } from 'playwright-core';
import { buildBundle, launch, openPanel, serve } from '../test/browser/harness';
import { recordResult } from './results';
import { HISTORY_IN_PAGE } from './pageScripts';

const CHUNKS_PER_SECOND = 200;
const SECONDS = 10;
const HISTORY = 5000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const CHUNK_TEXT = [
  'The parser reads ', 'the **config** ', 'file and ', 'then `validates` ', 'each key.\n\n',
  '```ts\n', 'const port = Number(raw.port ?? 8080);\n', 'if (!Number.isInteger(port)) throw new Error("bad port");\n', '```\n\n',
  '- first point\n', '- second [link](https://example.com)\n\n',
];

/** Runs in the page: streams chunks from a timer and records every frame's duration. */
const STREAM_IN_PAGE = `(async ({ rate, seconds, texts }) => {
  const post = (m) => window.postMessage(m, '*');
  post({ type: 'turnStarted', epoch: 1 });
  const frames = [];
  let last = performance.now();
  let running = true;
  const tick = (now) => { frames.push(now - last); last = now; if (running) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const total = rate * seconds;
  let sent = 0;
  const started = performance.now();
  await new Promise((done) => {
    const pump = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      for (; sent < due; sent += 1) {
        const message = Math.floor(sent / 400);
        if (sent % 50 === 49) {
          post({ type: 'sessionUpdate', epoch: 1, sessionId: 'bench', update: { sessionUpdate: 'tool_call', toolCallId: 't' + sent, title: 'Read src/file' + sent + '.ts', kind: 'read', status: 'completed', locations: [{ path: '/w/src/file' + sent + '.ts', line: 3 }] } });
        }
        post({ type: 'sessionUpdate', epoch: 1, sessionId: 'bench', update: { sessionUpdate: 'agent_message_chunk', messageId: 'm' + message + '-' + Math.floor(sent / 50), content: { type: 'text', text: texts[sent % texts.length] } } });
      }
      if (sent >= total) done(); else setTimeout(pump, 5);
    };
    pump();
  });
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  running = false;
  return { frames: frames.slice(1), items: document.querySelectorAll('.vitem').length };
})`;


/** Runs in the page: posts a 5,000-message replay and times it until painted, then scrolling to the top. */
const REPLAY_IN_PAGE = `(async (count) => {
  const post = (m) => window.postMessage(m, '*');
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const started = performance.now();
  post({ type: 'sessionStarted', epoch: 1, sessionId: 'replay', origin: 'load' });
  post({ type: 'replayBegin', epoch: 1 });
  for (let i = 0; i < count; i += 1) {
    const user = i % 2 === 0;
    post({ type: 'sessionUpdate', epoch: 1, sessionId: 'replay', update: { sessionUpdate: user ? 'user_message_chunk' : 'agent_message_chunk', messageId: 'm' + i, content: { type: 'text', text: user ? 'Question ' + i + ': why does it fail?' : 'Answer ' + i + ' with **bold**, \`code\` and a list:\\n\\n- one\\n- two\\n\\n\`\`\`ts\\nconst x' + i + ' = ' + i + ';\\n\`\`\`' } } });
  }
  post({ type: 'replayEnd', epoch: 1 });
  while (!document.body.textContent.includes('Answer ' + (count - 1) + ' with')) await frame();
  await frame();
  const painted = performance.now() - started;
  const scroller = document.querySelector('.transcript');
  const scrollStart = performance.now();
  while (!document.body.textContent.includes('Question 0:')) { scroller.scrollTop = 0; await frame(); }
  return { painted, toTop: performance.now() - scrollStart, inDom: document.querySelectorAll('.vitem').length };
})`;

/** Seconds the renderer's main thread spent in tasks so far (wall time, so machine load inflates it too). */
async function mainThreadBusy(cdp: CDPSession): Promise<number> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> };
  return metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
}

async function main(): Promise<void> {
  const bundle = await buildBundle();
  const server = await serve(bundle);
  const browser = await launch(server.origin);
  try {
    const stream = await openPanel(browser, server.origin, 'dark', { width: 480, height: 900 });
    const cdp = await browser.context.newCDPSession(stream.page);
    await cdp.send('Performance.enable');
    await stream.page.evaluate(`${HISTORY_IN_PAGE}(${HISTORY})`);
    const busyBefore = await mainThreadBusy(cdp);
    const result = (await stream.page.evaluate(`${STREAM_IN_PAGE}(${JSON.stringify({ rate: CHUNKS_PER_SECOND, seconds: SECONDS, texts: CHUNK_TEXT })})`)) as { frames: number[]; items: number };
    const busy = (await mainThreadBusy(cdp)) - busyBefore;
    const sorted = [...result.frames].sort((a, b) => a - b);
    const long = result.frames.filter((f) => f > 50).length;
    console.log(
      `webview stream ${CHUNKS_PER_SECOND} chunks/s for ${SECONDS}s: ${result.frames.length} frames, ` +
        `frame p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms, ` +
        `${long} frames > 50 ms; renderer main thread busy ${((busy / SECONDS) * 100).toFixed(0)}% of the time ` +
        `(script + layout + style + paint); after ${HISTORY} messages loaded, ${result.items} items in the DOM`,
    );
    recordResult({ id: `webview.bench: ${CHUNKS_PER_SECOND} chunks/s, renderer main thread busy / longest frame`, measured: `${((busy / SECONDS) * 100).toFixed(0)}% / ${(sorted.at(-1) ?? 0).toFixed(1)} ms (${long} frames > 50 ms)` });
    await stream.page.close();

    const replay = await openPanel(browser, server.origin, 'dark', { width: 480, height: 900 });
    const r = (await replay.page.evaluate(`${REPLAY_IN_PAGE}(5000)`)) as { painted: number; toTop: number; inDom: number };
    console.log(`webview replay 5,000 messages: on screen in ${r.painted.toFixed(0)} ms; scrolled to the first message in ${r.toTop.toFixed(0)} ms; ${r.inDom} items in the DOM`);
    await replay.page.close();
  } finally {
    await browser.close();
    await server.close();
    await bundle.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
