// Types for scripts/lazyBuiltins.mjs, for the TypeScript tests that use it.
import type { Plugin } from 'esbuild';
export const LAZY_BUILTINS: string[];
export function lazyBuiltins(options?: { roots?: string[] }): Plugin;
export function lazyBuiltinModule(name: string): string;
