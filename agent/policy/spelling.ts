// Path spellings that name the same file on some filesystem: HFS+ ignores
// zero-width joiners and other default-ignorable code points (`.g\u200cit` is
// `.git`), macOS and Windows fold case, NFD and NFC are the same name. Path
// rules and built-in protections are checked against the folded spelling too.

const ignorable = /\p{Default_Ignorable_Code_Point}/gu;

/** `relative` (posix separators) with ignorable code points removed, NFC, each component without trailing dots or spaces. */
export function foldedPath(relative: string): string {
  return relative
    .replace(ignorable, '')
    .normalize('NFC')
    .split('/')
    .map((component) => (component === '.' || component === '..' ? component : component.replace(/[. ]+$/, '') || component))
    .join('/');
}

/** Whether `relative` has a spelling that differs from its folded form (then both are checked). */
export function hasOtherSpelling(relative: string): boolean {
  return foldedPath(relative) !== relative;
}
