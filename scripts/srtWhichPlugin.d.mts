// Types for scripts/srtWhichPlugin.mjs, for the TypeScript tests that use it.
import type { Plugin } from 'esbuild';
export function srtWhichInProcess(options: { required: boolean; srtDist?: string; replacement?: string }): Plugin;
