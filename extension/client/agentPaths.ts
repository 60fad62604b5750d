// The canonical form of a path a third-party agent names (fs/read_text_file,
// fs/write_text_file). VS Code's Uri.file keeps "." and ".." segments, and
// getWorkspaceFolder matches segments, so "<ws>/../x" would pass as inside the
// workspace and a staged write would land outside it. Pure: no vscode import.
import path from 'node:path';

export class AgentPathError extends Error {}

/** `raw` absolute and resolved ("." and ".." gone, no trailing separator); throws on anything else. */
export function agentPath(raw: string, platform: NodeJS.Platform = process.platform): string {
  if (raw.includes('\0')) throw new AgentPathError(`ACP paths may not contain NUL; got "${raw.replace(/\0/g, '\\0').slice(0, 200)}".`);
  const windows = platform === 'win32';
  const absolute = windows ? /^[a-zA-Z]:[\\/]/.test(raw) || raw.startsWith('\\\\') : raw.startsWith('/');
  if (!absolute) throw new AgentPathError(`ACP paths must be absolute; got "${raw.slice(0, 200)}".`);
  return (windows ? path.win32 : path.posix).resolve(raw);
}
