// What the two search engines (ripgrep and the JS fallback) take and give.

export interface SearchQuery {
  /** Workspace root (real path); results are relative to it. */
  root: string;
  /** File or directory to search, relative to root ('.' for all). */
  target: string;
  pattern: string;
  glob?: string;
  caseInsensitive: boolean;
  maxMatches: number;
  /** True for a file (posix path relative to root) the policy keeps out of results: its lines are never read into a match. */
  hidden?(relative: string): boolean;
}

export interface SearchMatch {
  /** Posix path relative to the root. */
  path: string;
  /** 1-based. */
  line: number;
  text: string;
}

export interface SearchOutcome {
  matches: SearchMatch[];
  /** True when more matches exist than were returned. */
  more: boolean;
  /** Set when the search stopped before looking at every file, saying why. */
  incomplete?: string;
}
