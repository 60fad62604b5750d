// A session's default title: the start of its first prompt, on one line.
import type { ContentBlockJson } from './records';

export const TITLE_MAX_CHARS = 80;

/** Text of the prompt's text blocks (else the names of what it attached), collapsed and cut at a word. */
export function titleFromPrompt(prompt: ContentBlockJson[]): string | undefined {
  const texts = prompt.flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []));
  const source = texts.length > 0 ? texts.join(' ') : prompt.map(attachmentName).filter(Boolean).join(', ');
  return truncateTitle(source);
}

export function truncateTitle(text: string): string | undefined {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  const chars = Array.from(line); // by code point, never splitting a surrogate pair
  if (chars.length <= TITLE_MAX_CHARS) return line;
  const cut = chars.slice(0, TITLE_MAX_CHARS - 1).join('');
  const space = cut.lastIndexOf(' ');
  // Prefer a word boundary unless it would throw away most of the title.
  const head = space >= TITLE_MAX_CHARS / 2 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,.;:!?-]+$/, '')}…`;
}

function attachmentName(block: ContentBlockJson): string {
  if (block.type === 'resource_link' && typeof block.name === 'string') return block.name;
  const resource = block.resource as { uri?: unknown } | undefined;
  if (block.type === 'resource' && typeof resource?.uri === 'string') return resource.uri.split('/').pop() ?? '';
  if (block.type === 'image') return 'image';
  if (block.type === 'audio') return 'audio';
  return '';
}
