// Types for scripts/zodLocales.mjs, for the TypeScript tests that use it.
import type { Plugin } from 'esbuild';
export function zodEnglishOnly(): Plugin;
