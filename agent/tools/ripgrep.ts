// search through ripgrep: fast, and honours .gitignore/.ignore the way
// developers expect. Runs with a fixed argv, never a shell, and --no-config
// so no config file can add flags such as --pre.
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ToolInputError } from './results';
import type { SearchMatch, SearchQuery, SearchOutcome } from './searchTypes';

/** The rg executable on PATH, or null. */
export async function findRipgrep(envPath = process.env.PATH ?? ''): Promise<string | null> {
  const names = process.platform === 'win32' ? ['rg.exe'] : ['rg'];
  for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        await access(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here; keep looking
      }
    }
  }
  return null;
}

interface RgMatch {
  type: 'match';
  data: { path: { text?: string }; line_number: number; lines: { text?: string } };
}

export function searchWithRipgrep(rg: string, query: SearchQuery, signal: AbortSignal): Promise<SearchOutcome> {
  const args = [
    '--json', '--no-config', '--no-require-git', '--hidden', '--glob', '!.git',
    query.caseInsensitive ? '--ignore-case' : '--case-sensitive',
    ...(query.glob ? ['--glob', query.glob] : []),
    '--regexp', query.pattern, '--', query.target,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd: query.root, stdio: ['ignore', 'pipe', 'pipe'], signal });
    const matches: SearchMatch[] = [];
    let more = false;
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (more || !line.startsWith('{"type":"match"')) return;
      let event: RgMatch;
      try {
        event = JSON.parse(line) as RgMatch;
      } catch {
        return;
      }
      const file = event.data.path.text;
      const text = event.data.lines.text;
      if (file === undefined || text === undefined) return; // non-UTF-8 name or line
      const relative = path.posix.normalize(file.split(path.sep).join('/'));
      if (query.hidden?.(relative)) return;
      if (matches.length === query.maxMatches) {
        more = true;
        child.kill();
        return;
      }
      matches.push({ path: relative, line: event.data.line_number, text: text.replace(/\r?\n$/, '') });
    });
    child.on('error', (error) => reject(signal.aborted ? signal.reason : error));
    child.on('close', (code) => {
      if (signal.aborted) return reject(signal.reason);
      // 0: matches, 1: none; 2 with matches means some files could not be read.
      if (code === 2 && matches.length === 0 && !more) {
        return reject(new ToolInputError(`search failed: ${stderr.trim().split('\n').slice(0, 6).join('\n') || 'ripgrep exited with an error'}`));
      }
      resolve({ matches, more });
    });
  });
}
