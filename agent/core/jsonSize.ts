// How big agent text is on the wire. Every message is one JSON-RPC line, and
// the ACP SDK's reader ends the whole connection (every session on it) on a
// line over 32 MiB; JSON makes a control character 6 bytes, a quote 2.

/** The UTF-8 bytes of `value` as a JSON string (what JSON.stringify makes of it), counted without making it. */
export function jsonStringBytes(value: string | null): number {
  if (value === null) return 4;
  let bytes = 2;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) bytes += 2;
    else if (code < 0x20) bytes += 6;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) bytes += 6; // a lone surrogate is escaped as \uXXXX
    else bytes += 3;
  }
  return bytes;
}
