// Accord's words in modules kept free of the vscode import (they are unit-tested
// directly). Same call shape as vscode.l10n.t, so the strings are written, found
// and translated the same way; the extension hands over vscode.l10n.t when it
// activates. Until then (and in unit tests) the English is used, formatted the
// way vscode.l10n.t formats it.
export type Translate = (message: string, ...args: Array<string | number | boolean>) => string;

let translate: Translate = english;

/** Called once at activation with vscode.l10n.t. */
export function useTranslation(t: Translate): void {
  translate = t;
}

export const l10n = {
  t: (message: string, ...args: Array<string | number | boolean>): string => translate(message, ...args),
};

/** `{0}`, `{1}` … replaced by the arguments; an index with no argument stays as written. */
export function english(message: string, ...args: Array<string | number | boolean>): string {
  return message.replace(/\{(\d+)\}/g, (whole, index: string) => (Number(index) < args.length ? String(args[Number(index)]) : whole));
}
