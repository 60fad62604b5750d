// An esbuild plugin: zod v4's locales namespace (`z.locales`, zod/v4/locales/index.js)
// carries every language's error messages, ~300 KB of the agent core that
// each start read and evaluated; Accord uses only English (zod's default).
// The index is replaced by one that exports `en` and, for each other locale,
// a function that throws if called. The build fails if any bundled code
// outside zod names one of them (`locales.de`), so nothing reaches a stub.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const KEPT = 'en';

/** `export { default as name } from "./file.js";` lines of zod's locales index: name -> file. */
function localesOf(indexSource) {
  const found = new Map();
  for (const [, name, file] of indexSource.matchAll(/^export \{ default as (\w+) \} from "(\.\/[\w-]+\.js)";$/gm)) found.set(name, file);
  return found;
}

/** @returns {import('esbuild').Plugin} */
export function zodEnglishOnly() {
  return {
    name: 'accord-zod-english-only',
    setup(build) {
      const stripped = new Set();
      let replaced = 0;
      build.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const locales = localesOf(source);
        // Every line of the index must be a locale we understand, and English among them: else zod changed, and this plugin must too.
        const lines = source.split('\n').filter((line) => line.trim() !== '');
        if (locales.size === 0 || lines.length !== locales.size || !locales.has(KEPT)) {
          return { errors: [{ text: `scripts/zodLocales.mjs: ${args.path} is not the list of locales this plugin knows` }] };
        }
        replaced++;
        const stubs = [...locales.keys()].filter((name) => name !== KEPT);
        for (const name of stubs) stripped.add(name);
        return {
          contents: [
            `export { default as ${KEPT} } from ${JSON.stringify(locales.get(KEPT))};`,
            'function stripped(name) { return () => { throw new Error(`zod locale "${name}" is not in this build of Accord (scripts/zodLocales.mjs)`); }; }',
            ...stubs.map((name) => `export const ${name} = /* @__PURE__ */ stripped(${JSON.stringify(name)});`),
          ].join('\n'),
          resolveDir: dirname(args.path),
          loader: 'js',
        };
      });
      build.onEnd((result) => {
        if (replaced === 0 || !result.metafile) return;
        const named = new RegExp(`\\blocales\\s*(\\.\\s*(${[...stripped].join('|')})\\b|\\[)`);
        for (const input of Object.keys(result.metafile.inputs)) {
          if (/(^|\/)node_modules\/zod\/v4\/locales\//.test(input) || input.includes(':')) continue;
          const source = readFileSync(join(build.initialOptions.absWorkingDir ?? process.cwd(), input), 'utf8');
          const use = named.exec(source);
          if (use) throw new Error(`scripts/zodLocales.mjs: ${input} uses zod's ${use[0]}, which this build strips`);
        }
      });
    },
  };
}
