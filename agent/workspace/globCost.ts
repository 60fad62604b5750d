// Globs become backtracking regular expressions (picomatch), matched on the
// agent's event loop against subjects nobody vetted (file names of a cloned
// project, arguments the model picks): some cost exponential or high
// polynomial time. Shared by the policy's schema and the tools that take a glob.

/** The most "*" one path segment or one argument pattern of the policy may have (a `**` segment aside). */
export const MAX_STARS_PER_SEGMENT = 3;
/** The same for a glob the model gives a tool, matched against every file of the project. */
export const MAX_TOOL_GLOB_STARS = 2;

/**
 * Why a glob could take too long to match, or undefined. Globs become
 * backtracking regular expressions, matched on the agent's event loop
 * against subjects the agent chooses: an extended glob (`*(a|b)`) can take
 * exponential time, and each "*" multiplies the cost by the subject's length.
 */
export function costlyGlobReason(glob: string, maxStars = MAX_STARS_PER_SEGMENT): string | undefined {
  if (/[?*+@!]\(/.test(glob)) return 'extended globs ("*(...)", "+(...)", "?(...)", "@(...)", "!(...)") are not supported: matching them can take exponential time';
  const stars = Math.max(0, ...glob.split('/').map((segment) => (segment === '**' ? 0 : segment.split('*').length - 1)));
  if (stars > maxStars) return `at most ${maxStars} "*" in one path segment or argument (this has ${stars}): each one multiplies the time a match can take`;
  return undefined;
}
