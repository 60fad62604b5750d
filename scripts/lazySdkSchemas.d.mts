// Types for scripts/lazySdkSchemas.mjs, for the TypeScript tests that use it.
import type { Plugin } from 'esbuild';
export const SDK_SCHEMA_FILES: RegExp;
export function lazySdkSchemas(): Plugin;
export interface FastParsers {
  module: string;
  file: RegExp;
  parsers: Record<string, string>;
}
export const FAST_PARSERS: FastParsers;
export function lazySchemaModule(source: string, where?: string, fast?: Pick<FastParsers, 'module' | 'parsers'>): string;
