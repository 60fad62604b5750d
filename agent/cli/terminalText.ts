// Text an agent or model produced, made safe for a terminal: escape
// sequences (ESC, CSI, OSC…) and other control characters could move the
// cursor, rewrite earlier output, set the window title or write to the
// clipboard. Newlines and tabs stay.
// eslint-disable-next-line no-control-regex
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text.replace(controls, (c) => (c === '\r' ? '' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
