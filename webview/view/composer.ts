// The prompt box: multiline text, `/` commands and `@` file mentions with a
// completion list, pasted images when the agent takes them, config pickers,
// and Send that turns into Stop while a turn runs.
import { html, nothing, type TemplateResult } from 'lit';
import type { PromptImage, PromptMention } from '../protocol';
import type { ViewContext } from './context';
import { renderPickers } from './pickers';
import { renderModelPicker } from './setup';
import { clip } from '../render/longText';

interface Completion {
  label: string;
  detail?: string;
  icon: string;
  insert: string;
  mention?: PromptMention;
}

interface ComposerState {
  mentions: PromptMention[];
  images: PromptImage[];
  popup: { trigger: '/' | '@'; query: string; start: number; index: number } | undefined;
}

const state: ComposerState = { mentions: [], images: [], popup: undefined };

function textarea(): HTMLTextAreaElement | null {
  return document.querySelector<HTMLTextAreaElement>('.composer textarea');
}

/** The unsent prompt and its mentions (saved across a webview reload). */
export function composerDraft(): { text: string; mentions: PromptMention[] } {
  return { text: textarea()?.value ?? '', mentions: state.mentions };
}

/** Puts back a saved unsent prompt; false (nothing done) while the composer is not rendered yet. */
export function restoreDraft(text: string, mentions: PromptMention[]): boolean {
  const area = textarea();
  if (!area) return false;
  area.value = text;
  state.mentions = [...mentions];
  autoGrow(area);
  return true;
}

function completions(ctx: ViewContext): Completion[] {
  const popup = state.popup;
  if (!popup) return [];
  if (popup.trigger === '/') {
    const q = popup.query.toLowerCase();
    return ctx.store.commands
      .filter((c) => c.name.toLowerCase().startsWith(q))
      .slice(0, 50)
      .map((c) => ({ label: `/${c.name}`, detail: c.description, icon: 'symbol-event', insert: `/${c.name} ` }));
  }
  if (ctx.store.completions.query !== popup.query) return [];
  return ctx.store.completions.items.map((f) => ({
    label: f.label,
    detail: f.detail,
    icon: f.kind === 'folder' ? 'folder' : f.kind === 'selection' ? 'selection' : 'file',
    insert: `@${f.label} `,
    mention: { path: f.path, ...(f.range ? { range: f.range } : {}), name: f.label, kind: f.kind },
  }));
}

/** Find a `/command` at the start or an `@word` just before the caret. */
function detectTrigger(ctx: ViewContext, area: HTMLTextAreaElement): void {
  const caret = area.selectionStart;
  const before = area.value.slice(0, caret);
  const command = /^\/(\S*)$/.exec(before);
  const mention = /(^|\s)@([^\s@]*)$/.exec(before);
  if (command) {
    state.popup = { trigger: '/', query: command[1] ?? '', start: 0, index: 0 };
  } else if (mention) {
    const query = mention[2] ?? '';
    state.popup = { trigger: '@', query, start: caret - query.length - 1, index: 0 };
    ctx.post({ type: 'requestFileCompletions', query });
  } else {
    state.popup = undefined;
  }
}

function accept(ctx: ViewContext, area: HTMLTextAreaElement, choice: Completion): void {
  const popup = state.popup;
  if (!popup) return;
  const caret = area.selectionStart;
  area.value = area.value.slice(0, popup.start) + choice.insert + area.value.slice(caret);
  const position = popup.start + choice.insert.length;
  area.setSelectionRange(position, position);
  if (choice.mention && !state.mentions.some((m) => sameMention(m, choice.mention!))) state.mentions.push(choice.mention);
  state.popup = undefined;
  ctx.update();
}

/** The same file, and the same lines when either is a selection. */
function sameMention(a: PromptMention, b: PromptMention): boolean {
  return a.path === b.path && a.range?.startLine === b.range?.startLine && a.range?.endLine === b.range?.endLine;
}

function send(ctx: ViewContext, area: HTMLTextAreaElement): void {
  const text = area.value.trim();
  if ((!text && state.images.length === 0) || ctx.store.turn.running) return;
  const mentions = state.mentions.filter((m) => text.includes(`@${m.name}`));
  ctx.post({ type: 'sendPrompt', epoch: ctx.store.epoch, text, mentions, images: state.images });
  ctx.store.addLocalPrompt(text, mentions, state.images);
  ctx.followBottom();
  area.value = '';
  state.mentions = [];
  state.images = [];
  state.popup = undefined;
  autoGrow(area);
  ctx.update();
}

function autoGrow(area: HTMLTextAreaElement): void {
  area.style.height = 'auto';
  area.style.height = `${Math.min(area.scrollHeight, 240)}px`;
}

function onKeyDown(ctx: ViewContext, event: KeyboardEvent): void {
  const area = event.target as HTMLTextAreaElement;
  const items = completions(ctx);
  const popup = state.popup;
  if (popup && items.length) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      popup.index = (popup.index + (event.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      ctx.update();
      return;
    }
    if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
      event.preventDefault();
      const choice = items[popup.index];
      if (choice) accept(ctx, area, choice);
      return;
    }
  }
  if (event.key === 'Escape') {
    event.preventDefault();
    if (state.popup) {
      state.popup = undefined;
      ctx.update();
    } else if (ctx.store.turn.running) {
      ctx.post({ type: 'cancelTurn', epoch: ctx.store.epoch });
    }
    return;
  }
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send(ctx, area);
  }
}

function onPaste(ctx: ViewContext, event: ClipboardEvent): void {
  if (!ctx.store.capabilities.image) return;
  for (const file of event.clipboardData?.files ?? []) {
    const mimeType = file.type;
    if (mimeType !== 'image/png' && mimeType !== 'image/jpeg' && mimeType !== 'image/gif' && mimeType !== 'image/webp') continue;
    event.preventDefault();
    const reader = new FileReader();
    reader.onload = () => {
      const data = String(reader.result).split(',')[1] ?? '';
      state.images.push({ mimeType, data, name: file.name || 'pasted image' });
      ctx.update();
    };
    reader.readAsDataURL(file);
  }
}

/** The hint names `/` only when the agent offers commands. */
function promptHint(ctx: ViewContext): string {
  return ctx.store.commands.length > 0 ? 'Ask the agent — / for commands, @ to mention files' : 'Ask the agent — @ to mention files';
}

export function renderComposer(ctx: ViewContext): TemplateResult {
  const running = ctx.store.turn.running;
  const items = completions(ctx);
  const popup = state.popup;
  return html`<div class="composer">
    ${popup && items.length
      ? html`<div class="completions" role="listbox">${items.map(
          (item, i) => html`<div class="completion ${i === popup.index ? 'selected' : ''}" role="option" aria-selected=${i === popup.index}
            title=${item.detail ? `${clip(item.label, 1000)} — ${clip(item.detail, 1000)}` : clip(item.label, 1000)}
            @mousedown=${(e: Event) => { e.preventDefault(); const area = textarea(); if (area) accept(ctx, area, item); }}>
            <span class="codicon codicon-${item.icon}"></span><span class="completion-label">${clip(item.label, 120)}</span>
            ${item.detail ? html`<span class="completion-detail">${item.detail}</span>` : nothing}
          </div>`,
        )}</div>`
      : nothing}
    ${state.mentions.length || state.images.length
      ? html`<div class="attachments">${state.mentions.map((m) => html`<span class="chip" title=${m.path}><span class="codicon codicon-file"></span>${m.name}</span>`)}${state.images.map(
          (img, i) => html`<span class="chip"><span class="codicon codicon-file-media"></span>${img.name ?? 'image'}
            <span class="codicon codicon-close chip-remove" role="button" title="Remove" @click=${() => { state.images.splice(i, 1); ctx.update(); }}></span></span>`,
        )}</div>`
      : nothing}
    <textarea rows="1" placeholder=${running ? 'The agent is working… (Esc to stop)' : promptHint(ctx)}
      aria-label="Prompt"
      @keydown=${(e: KeyboardEvent) => onKeyDown(ctx, e)}
      @input=${(e: Event) => { const area = e.target as HTMLTextAreaElement; autoGrow(area); detectTrigger(ctx, area); ctx.update(); }}
      @paste=${(e: ClipboardEvent) => onPaste(ctx, e)}></textarea>
    <div class="composer-bar">
      ${renderModelPicker(ctx)}
      ${renderPickers(ctx)}
      <span class="spacer"></span>
      ${running
        ? html`<vscode-button class="stop" secondary title="Stop (Esc)" @click=${() => ctx.post({ type: 'cancelTurn', epoch: ctx.store.epoch })}>
            <span class="codicon codicon-debug-stop" slot="content-before"></span>Stop</vscode-button>`
        : html`<vscode-button class="send" title="Send (Enter)" @click=${() => { const area = textarea(); if (area) send(ctx, area); }}>
            <span class="codicon codicon-send" slot="content-before"></span>Send</vscode-button>`}
    </div>
  </div>`;
}
