// `fs/read_text_file`'s `line` (1-based) and `limit` (a line count) applied to
// a document's text. Pure: no vscode import.

export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if ((line === undefined || line === null) && (limit === undefined || limit === null)) return text;
  const lines = text.split(/(?<=\n)/); // keep each line's own ending
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit === undefined || limit === null ? lines.length : start + Math.max(0, limit);
  return lines.slice(start, end).join('');
}
