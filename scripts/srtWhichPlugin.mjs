// The esbuild plugin that keeps sandbox-runtime from spawning `which`.
//
// srt's dist/utils/which.js runs `spawnSync('which', …)` (a blocking fork of
// the agent, with a 1 s timeout that a busy machine turns into "not found")
// for ripgrep at each dependency check and for the shell on every command it
// wraps; agent/sandbox/whichSync.ts answers in-process instead. Any bundle
// holding the runtime must take ours in that file's place, and the sandbox
// bundle must hold it: a dependency upgrade that moves or stops importing the
// file fails the build rather than silently losing the substitution.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `required`: this bundle is the runtime's own (it must hold the substitution).
 * `srtDist` and `replacement` are for tests: the package's dist folder and our module.
 */
export function srtWhichInProcess({
  required,
  srtDist = dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime')),
  replacement = fileURLToPath(new URL('../agent/sandbox/whichSync.ts', import.meta.url)),
}) {
  const replaced = join(srtDist, 'utils', 'which.js');
  if (!existsSync(replaced)) {
    throw new Error(`esbuild.mjs: ${relative(process.cwd(), replaced)} is gone: check how sandbox-runtime looks programs up now (agent/sandbox/whichSync.ts replaced that file)`);
  }
  return {
    name: 'accord-srt-which-in-process',
    setup(build) {
      let redirected = 0;
      build.onStart(() => {
        redirected = 0;
      });
      build.onResolve({ filter: /(^|\/)which\.js$/ }, (args) => {
        if (resolve(args.resolveDir, args.path) !== replaced) return undefined;
        redirected++;
        return { path: replacement };
      });
      build.onEnd((result) => {
        if (result.errors.length > 0) return;
        if (!result.metafile) throw new Error('esbuild.mjs: srtWhichInProcess needs metafile: true to check the substitution');
        // Metafile paths are relative to the build's working directory.
        const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(build.initialOptions.absWorkingDir ?? process.cwd(), input));
        const entries = build.initialOptions.entryPoints ?? {};
        const name = (Array.isArray(entries) ? entries.map((e) => (typeof e === 'string' ? e : e.in)) : Object.keys(entries)).join(', ');
        if (inputs.includes(replaced)) throw new Error(`esbuild.mjs: ${name} bundles sandbox-runtime's utils/which.js (it spawns which): it must take agent/sandbox/whichSync.ts`);
        const holdsSrt = inputs.some((input) => input.startsWith(srtDist + sep));
        if ((holdsSrt || required) && (redirected === 0 || !inputs.includes(replacement))) {
          throw new Error(`esbuild.mjs: ${name} ${holdsSrt ? 'holds sandbox-runtime' : 'is the sandbox bundle'} but nothing imported its utils/which.js, so agent/sandbox/whichSync.ts replaced nothing: check how this sandbox-runtime looks programs up`);
        }
      });
    },
  };
}
