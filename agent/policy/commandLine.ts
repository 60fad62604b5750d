// `!cmd args` prompts: one command line split into argv with quote awareness
// and NO shell. Anything a shell would interpret (variables, chaining, pipes,
// globs, redirection, substitution) is refused with the reason, because a
// person typing it expects the shell's meaning and we will not provide it.

export type CommandLineResult = { ok: true; argv: string[] } | { ok: false; reason: string };

const refusals: Array<[RegExp, string]> = [
  [/^&&$|^&/, '"&&" and "&" (chaining, background jobs) need a shell; run one command at a time'],
  [/^\|\|$|^\|/, '"|" and "||" (pipes, or-chaining) need a shell; run one command at a time'],
  [/^;/, '";" chains commands, which needs a shell; run one command at a time'],
  [/^[<>]/, 'redirection ("<", ">") needs a shell; the output is shown to you already'],
  [/^`/, 'backticks (command substitution) need a shell'],
  [/^\$\(/, '"$(…)" (command substitution) needs a shell'],
  [/^\$/, 'variables ("$NAME") are not expanded; write the value itself'],
  [/^[*?[]/, 'glob patterns ("*", "?", "[…]") are not expanded; name the files, or quote the pattern to pass it literally'],
  [/^[()]/, 'parentheses (subshells) need a shell; quote them to pass them literally'],
];

function refuseUnquoted(rest: string, atWordStart: boolean): string | undefined {
  if (atWordStart && rest.startsWith('~')) return '"~" is not expanded; write the full path';
  if (atWordStart && rest.startsWith('#')) return '"#" starts a comment in a shell; quote it to pass it literally';
  for (const [pattern, reason] of refusals) if (pattern.test(rest)) return reason;
  return undefined;
}

// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u0008\u000a-\u001f\u007f\u2028\u2029]/;

/** Splits `line` (without the leading "!") into argv, or says why it cannot. */
export function splitCommandLine(line: string): CommandLineResult {
  const control = controlCharacter.exec(line);
  if (control) {
    const code = control[0].codePointAt(0)!.toString(16).padStart(4, '0');
    return { ok: false, reason: `The command contains a control character (U+${code}); give exactly one line of plain text.` };
  }
  const argv: string[] = [];
  let word: string | null = null;
  let i = 0;
  const fail = (why: string): CommandLineResult => ({ ok: false, reason: `Cannot run "${line.trim()}": ${why}.` });
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      if (word !== null) argv.push(word);
      word = null;
      i++;
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return fail('a single quote is not closed');
      word = (word ?? '') + line.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let text = '';
      i++;
      for (;;) {
        if (i >= line.length) return fail('a double quote is not closed');
        const d = line[i]!;
        if (d === '"') break;
        if (d === '$' || d === '`') return fail(`"${d}" inside double quotes would be expanded by a shell; use single quotes to pass it literally`);
        if (d === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) {
          text += line[i + 1];
          i += 2;
          continue;
        }
        text += d;
        i++;
      }
      word = (word ?? '') + text;
      i++;
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= line.length) return fail('the line ends with a backslash');
      word = (word ?? '') + line[i + 1];
      i += 2;
      continue;
    }
    const refusal = refuseUnquoted(line.slice(i), word === null);
    if (refusal) return fail(refusal);
    word = (word ?? '') + c;
    i++;
  }
  if (word !== null) argv.push(word);
  if (argv.length === 0) return { ok: false, reason: 'The command is empty: write "!" followed by a program and its arguments.' };
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0]!)) {
    return fail(`"${argv[0]}" sets an environment variable, which needs a shell; environment changes are not accepted from a command line`);
  }
  return { ok: true, argv };
}
