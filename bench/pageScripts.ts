// Page scripts the Chromium benches share (ui.bench.ts, webview.bench.ts).

/** Runs in the page: loads a session of `count` messages (the transcript a stream continues) and waits until it is painted. */
export const HISTORY_IN_PAGE = `(async (count) => {
  const post = (m) => window.postMessage(m, '*');
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  post({ type: 'sessionStarted', epoch: 1, sessionId: 'bench', origin: 'load' });
  post({ type: 'replayBegin', epoch: 1 });
  for (let i = 0; i < count; i += 1) {
    const user = i % 2 === 0;
    post({ type: 'sessionUpdate', epoch: 1, sessionId: 'bench', update: { sessionUpdate: user ? 'user_message_chunk' : 'agent_message_chunk', messageId: 'h' + i, content: { type: 'text', text: user ? 'Question ' + i + ': why does it fail?' : 'Answer ' + i + ' with **bold**, \`code\` and a list:\\n\\n- one\\n- two\\n\\n\`\`\`ts\\nconst x' + i + ' = ' + i + ';\\n\`\`\`' } } });
  }
  post({ type: 'replayEnd', epoch: 1 });
  while (!document.body.textContent.includes('Answer ' + (count - 1) + ' with')) await frame();
  for (let i = 0; i < 10; i += 1) await frame();
})`;
