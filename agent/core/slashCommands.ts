// Slash commands: a text-only prompt starting with "/name". Every command the
// agent handles is listed in available_commands_update (the panel's "/"
// menu); a "/" line naming no command goes to the model as ordinary text (it
// may be a path).
import type { UserContent } from 'ai';
import type { AvailableCommand } from './updates';

export const builtinCommands: AvailableCommand[] = [
  {
    name: 'compact',
    description: 'Summarise the conversation so far to free context; the summary replaces the older messages for the model (the log keeps them).',
    input: { hint: 'what the summary should focus on (optional)' },
  },
];

/** The command and its argument text when the prompt is a "/" line naming one of `known`, else undefined. */
export function slashCommand(prompt: UserContent, known: readonly AvailableCommand[]): { name: string; args: string } | undefined {
  const parts = typeof prompt === 'string' ? [{ type: 'text' as const, text: prompt }] : prompt;
  if (parts.length === 0 || !parts.every((p) => p.type === 'text')) return undefined;
  const text = parts.map((p) => (p as { text: string }).text).join('').trim();
  const match = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match || !known.some((c) => c.name === match[1])) return undefined;
  return { name: match[1]!, args: (match[2] ?? '').trim() };
}
