// The files an MCP tool call names. What a server does with its arguments is
// its own business, but an argument called `path`, `file`, `uri`, `dir`...
// (at any depth, alone or in a list) or any absolute path or file: URI is a
// file the call reads or writes, so the policy's path rules must see it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pathKey = /(^|[_-])(path|paths|file|files|filename|filenames|filepath|dir|dirs|directory|directories|folder|folders|uri|uris|root|roots|cwd|target|source|destination|dest)$|(path|paths|file|files|dir|directory|folder|uri|uris)$/i;

const MAX_DEPTH = 32;
const MAX_PATHS = 200;

/** Stands for arguments too deep or too many to check: outside the workspace, so the gate refuses the call and says why. */
function uncheckable(root: string, why: string): string {
  return path.resolve(root, '..', `(${why})`);
}

function toAbsolute(value: string, root: string, keyed: boolean): string | undefined {
  const text = value.trim();
  if (text === '' || text.includes('\0')) return undefined;
  if (/^file:/i.test(text)) {
    try {
      return fileURLToPath(text);
    } catch {
      return undefined;
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(text)) return undefined; // http:, s3:, ... not a local file
  if (text.startsWith('/')) return path.resolve(text);
  if (text === '~' || text.startsWith('~/')) return path.resolve('/', '~home', text); // outside any workspace: the gate denies it
  return keyed && !text.includes('\n') ? path.resolve(root, text) : undefined;
}

/** Absolute paths named by `input` (an MCP tool's arguments), resolved against the workspace `root`. */
export function pathArguments(input: unknown, root: string): string[] {
  const found = new Set<string>();
  let overflow: string | undefined;
  const visit = (value: unknown, keyed: boolean, depth: number): void => {
    if (overflow) return;
    if (depth > MAX_DEPTH) return void (overflow = 'arguments nested too deeply to check their paths');
    if (found.size >= MAX_PATHS) return void (overflow = 'too many paths in the arguments to check');
    if (typeof value === 'string') {
      const absolute = toAbsolute(value, root, keyed);
      if (absolute) found.add(absolute);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, keyed, depth + 1);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) visit(item, pathKey.test(key), depth + 1);
    }
  };
  visit(input, false, 0);
  return overflow ? [...found, uncheckable(root, overflow)] : [...found];
}
