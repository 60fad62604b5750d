// One `diff --git` section for a v2 diff's `patch`: ACP v2 wants absolute
// paths with no a/ b/ prefixes. Text files only (the core's diffs are text).
import { structuredPatch } from 'diff';

/** `oldText` null: the file is new. Returns the section, ending in a newline. */
export function gitPatchSection(rawPath: string, oldText: string | null, newText: string): string {
  const path = quotedPath(rawPath);
  const patch = structuredPatch(path, path, oldText ?? '', newText, '', '', { context: 3 });
  const header = [`diff --git ${path} ${path}`];
  if (oldText === null) header.push('new file mode 100644', '--- /dev/null');
  else header.push(`--- ${path}`);
  header.push(`+++ ${path}`);
  const hunks = patch.hunks.flatMap((hunk) => [
    `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`,
    ...hunk.lines,
  ]);
  // No hunks: the same text (a rewrite with no change); the header alone says which file.
  return [...header, ...hunks].join('\n') + '\n';
}

function range(start: number, lines: number): string {
  // An empty side starts at the line before (git's "-0,0" for a new file).
  if (lines === 0) return `${Math.max(start - 1, 0)},0`;
  return lines === 1 ? `${start}` : `${start},${lines}`;
}

/**
 * A path the agent's workspace named (hostile): one with a control character,
 * a quote or a backslash is C-quoted as git does, so it can never end the
 * header line and forge another section.
 */
function quotedPath(path: string): string {
  if (!/[\x00-\x1f"\\\x7f]/.test(path)) return path;
  return JSON.stringify(path).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
