// Caps what one tool call's result puts in the model's context, the session
// log and the wire: the start and the end, with a marker saying how much was
// left out. Tools cap their own output more tightly; this is the bound for
// every tool, MCP servers included, whose output is someone else's choice.

/** Characters of one result (for the model, and each text item for the card). */
export const MAX_RESULT_CHARS = 100_000;

export function capText(text: string, max = MAX_RESULT_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 4);
  let start = text.slice(0, head);
  let end = text.slice(text.length - (max - head));
  // Never split a surrogate pair at either cut.
  if (/[\uD800-\uDBFF]$/.test(start)) start = start.slice(0, -1);
  if (/^[\uDC00-\uDFFF]/.test(end)) end = end.slice(1);
  const omitted = text.length - start.length - end.length;
  return `${start}\n[… ${omitted.toLocaleString('en-US')} characters omitted (${text.length.toLocaleString('en-US')} in all); the start and the end are shown …]\n${end}`;
}
