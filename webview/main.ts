import './main.css';
import { parseHostMessage, PROTOCOL_VERSION, type WebviewMessage } from './protocol';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };
const vscode = acquireVsCodeApi();
const post = (message: WebviewMessage) => vscode.postMessage(message);

const status = document.createElement('div');
status.id = 'agent-status';
status.textContent = 'Starting agent…';
document.body.append(status);

window.addEventListener('message', (event: MessageEvent) => {
  const parsed = parseHostMessage(event.data);
  if (!parsed.ok) {
    console.warn(`accord: ${parsed.error}`);
    return;
  }
  const message = parsed.message;
  if (message.type === 'agentStatus') {
    const { state, agentName, agentVersion, message: detail } = message.status;
    status.dataset.state = state;
    status.textContent =
      state === 'connected' ? `Connected to ${agentName ?? 'agent'} ${agentVersion ?? ''}`.trim() : detail ?? state;
  }
});

post({ type: 'ready', version: PROTOCOL_VERSION });
