// @ai-sdk/provider-utils builds every model request's headers with the global
// `Headers` (withUserAgentSuffix, and `instanceof Headers` in
// normalizeHeaders). In Node 20 that global is a lazy getter that loads the
// whole of undici, which the agent's own model client (agent/models/http/)
// exists to avoid. This rewrites those two spots of the package's dist files
// to plain objects, with the same result: lower-case names, the user agent
// suffixed. The esbuild plugin applies it to the bundles;
// test/support/providerUtilsHeaders.mjs applies it to source runs (tests).
// A provider-utils whose code differs fails the build: look at what it does
// now before changing the expected text.
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';

const rewrites = [
  {
    what: 'normalizeHeaders: `headers instanceof Headers`',
    from: 'if (headers instanceof Headers) {',
    // A fetch Headers says so in its tag; reading the tag loads nothing.
    to: 'if (Object.prototype.toString.call(headers) === "[object Headers]") {',
  },
  {
    what: 'withUserAgentSuffix: `new Headers(...)`',
    from: `function withUserAgentSuffix(headers, ...userAgentSuffixParts) {
  const normalizedHeaders = new Headers(normalizeHeaders(headers));
  const currentUserAgentHeader = normalizedHeaders.get("user-agent") || "";
  normalizedHeaders.set(
    "user-agent",
    [currentUserAgentHeader, ...userAgentSuffixParts].filter(Boolean).join(" ")
  );
  return Object.fromEntries(normalizedHeaders.entries());
}`,
    to: `function withUserAgentSuffix(headers, ...userAgentSuffixParts) {
  const normalizedHeaders = normalizeHeaders(headers);
  normalizedHeaders["user-agent"] = [normalizedHeaders["user-agent"] || "", ...userAgentSuffixParts].filter(Boolean).join(" ");
  return normalizedHeaders;
}`,
  },
];

/** provider-utils' dist folder (both its ESM and CJS files are rewritten). */
export const providerUtilsDist = dirname(createRequire(import.meta.url).resolve('@ai-sdk/provider-utils'));

/** Whether `file` is one of the package's entry files this rewrites. */
export function isProviderUtilsEntry(file) {
  return file === join(providerUtilsDist, 'index.mjs') || file === join(providerUtilsDist, 'index.js');
}

/** `source` with both rewrites; throws, naming the spot, if either is not found exactly once. */
export function withoutGlobalHeaders(source, file) {
  let result = source;
  for (const { what, from, to } of rewrites) {
    const count = result.split(from).length - 1;
    if (count !== 1) {
      throw new Error(`providerUtilsHeaders: ${file}: expected ${what} once, found it ${count} times; check how @ai-sdk/provider-utils builds request headers now (scripts/providerUtilsHeaders.mjs)`);
    }
    result = result.replace(from, () => to);
  }
  return result;
}

/**
 * The esbuild plugin. `required`: this bundle must hold provider-utils (the
 * agent core, which lends it to the provider bundles); any bundle that holds
 * it gets the rewrite.
 */
export function providerUtilsPlainHeaders({ required }) {
  return {
    name: 'accord-provider-utils-plain-headers',
    setup(build) {
      let rewritten = 0;
      build.onStart(() => {
        rewritten = 0;
      });
      build.onLoad({ filter: /[\\/]@ai-sdk[\\/]provider-utils[\\/]dist[\\/]index\.m?js$/ }, async (args) => {
        if (!isProviderUtilsEntry(args.path)) return undefined;
        const { readFile } = await import('node:fs/promises');
        rewritten++;
        return { contents: withoutGlobalHeaders(await readFile(args.path, 'utf8'), args.path), loader: 'js' };
      });
      build.onEnd((result) => {
        if (result.errors.length > 0 || !result.metafile) return;
        const holds = Object.keys(result.metafile.inputs).some((input) => input.includes(`@ai-sdk${sep}provider-utils${sep}dist${sep}`) || input.includes('@ai-sdk/provider-utils/dist/'));
        if ((holds || required) && rewritten === 0) {
          throw new Error('esbuild.mjs: a bundle holds @ai-sdk/provider-utils but its request headers were not rewritten (scripts/providerUtilsHeaders.mjs): its entry file moved?');
        }
      });
    },
  };
}
