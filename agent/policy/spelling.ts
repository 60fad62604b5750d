// Path spellings that name the same file on some filesystem: HFS+ ignores
// zero-width joiners and other default-ignorable code points (`.g\u200cit` is
// `.git`), macOS and Windows fold case, NFD and NFC are the same name. Path
// rules and built-in protections are checked against the folded spelling too.

const ignorable = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * `relative` (posix separators) with ignorable code points removed, NFC, each component without
 * an NTFS stream (`secret.txt::$DATA`, `secret.txt:x` are that file on Windows) and without
 * trailing dots or spaces.
 */
export function foldedPath(relative: string): string {
  return relative
    .replace(ignorable, '')
    .normalize('NFC')
    .split('/')
    .map((component) => {
      if (component === '.' || component === '..') return component;
      const stream = component.indexOf(':');
      const file = stream > 0 ? component.slice(0, stream) : component;
      return file.replace(/[. ]+$/, '') || file;
    })
    .join('/');
}

/** Whether `relative` has a spelling that differs from its folded form (then both are checked). */
export function hasOtherSpelling(relative: string): boolean {
  return foldedPath(relative) !== relative;
}
