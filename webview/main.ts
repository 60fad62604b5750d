// The chat panel's entry: validate every message from the extension, reduce
// it into the store, render at most once per animation frame.
import { onHostMessage, vscodeApi as vscode } from './bootLink'; // webview-boot.js said `ready` already, and keeps what arrives
import '@vscode/codicons/dist/codicon.css';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import './main.css';
import { parseHostMessage, type WebviewMessage } from './protocol';
import { ChatStore } from './state/store';
import { App } from './view/app';
import { newUiState, type ViewContext } from './view/context';
import { forgetRenderCache } from './view/items';
import { composerDraft, restoreDraft } from './view/composer';
import { parseSaved, restoreUi, saveState } from './state/saved';
import { continuePending, startFrame } from './view/markdownView';
import { RenderPacer } from './view/renderPacer';

// For the activation bench: the bundle (and every module it imports) has been evaluated.
performance.mark('accord: bundle evaluated');
const saved = parseSaved(vscode.getState());
const post = (message: WebviewMessage) => vscode.postMessage(message);

const store = new ChatStore((level, message) => {
  console.warn(`accord: ${message}`);
  post({ type: 'log', level, message });
});

let uiRev = 0;
const pacer = new RenderPacer(() => flush());
/** The person's own actions, scrolling and measuring: the next frame. */
const schedule = () => pacer.now();

const ctx: ViewContext = {
  store,
  ui: newUiState(),
  post,
  update() {
    uiRev += 1;
    schedule();
  },
  uiRev: () => uiRev,
  followBottom: () => app.followBottom(),
};

if (saved) restoreUi(saved, ctx.ui);

const root = document.createElement('div');
root.id = 'root';
document.body.append(root);
const app = new App(root, ctx, schedule);

let lastSaved = '';
let restored = saved === undefined;
let markedConnected = false;
function flush(): void {
  startFrame();
  app.render();
  // For the activation bench (bench/activation.bench.ts): when the panel first drew itself, and drew "connected".
  if (!markedConnected) {
    if (performance.getEntriesByName('accord: first render').length === 0) performance.mark('accord: first render');
    if (store.agent.state === 'connected') {
      markedConnected = true;
      performance.mark('accord: connected shown');
    }
  }
  if (!restored && saved) restored = restoreDraft(saved.draft, saved.mentions);
  remember();
  // A huge message renders a slice per frame; the rest continues in the next ones.
  if (continuePending()) schedule();
}

/** Keeps the unsent prompt and the open/closed state in VS Code's webview state, for a reloaded panel. */
function remember(): void {
  // Until the saved draft is back in the composer, the composer's (empty) text must not replace it.
  if (!restored) return;
  const draft = composerDraft();
  const state = JSON.stringify(saveState(draft.text, draft.mentions, ctx.ui));
  if (state === lastSaved) return;
  lastSaved = state;
  vscode.setState(JSON.parse(state));
}
// Typing re-renders only when it opens a completion list; the draft is saved as it changes.
document.addEventListener('input', () => remember());

onHostMessage((event: MessageEvent) => {
  const parsed = parseHostMessage(event.data);
  if (!parsed.ok) {
    console.warn(`accord: ${parsed.error}`);
    post({ type: 'log', level: 'warn', message: parsed.error });
    return;
  }
  const message = parsed.message;
  if (message.type === 'sessionStarted') forgetRenderCache();
  if (message.type === 'settings') uiRev += 1;
  // The extension's messages (streamed chunks above all) render paced; see view/renderPacer.ts. The agent's
  // status is rare and is what a person waits for on opening the view ("connected"): the next frame.
  if (store.apply(message)) {
    if (message.type === 'agentStatus') pacer.now();
    else pacer.paced();
  }
});

/** Links in rendered markdown carry no href: the extension decides what a click may open. */
function openLink(href: string): void {
  const fileLike = /^(file:|\/|[A-Za-z]:[\\/])/.test(href);
  if (!fileLike) return post({ type: 'openLink', href });
  const match = /^(?:file:\/\/)?(.*?)(?:#L?(\d+)|:(\d+))?$/.exec(href);
  const path = decodeURI(match?.[1] ?? href);
  const line = Number(match?.[2] ?? match?.[3] ?? 0);
  post(line > 0 ? { type: 'openLocation', path, line } : { type: 'openLocation', path });
}

function onActivate(event: Event): void {
  const target = event.target as Element | null;
  const link = target?.closest<HTMLElement>('[data-href]');
  if (link) {
    event.preventDefault();
    openLink(link.dataset.href ?? '');
    return;
  }
  const copy = target?.closest<HTMLElement>('[data-action="copy-code"]');
  if (copy) {
    const code = copy.closest('.code-block')?.querySelector('code')?.textContent ?? '';
    post({ type: 'copyText', text: code });
    copy.classList.add('copied');
    setTimeout(() => copy.classList.remove('copied'), 1200);
  }
}

document.addEventListener('click', onActivate);
// Keyboard access for everything rendered as role=button or role=link.
document.addEventListener('keydown', (event) => {
  const target = event.target as HTMLElement | null;
  if ((event.key !== 'Enter' && event.key !== ' ') || !target?.matches?.('[role="button"], [role="link"]')) return;
  event.preventDefault();
  target.click();
});

schedule();
