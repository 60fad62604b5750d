// Types for scripts/lazySdkSchemas.mjs, for the TypeScript tests that use it.
import type { Plugin } from 'esbuild';
export const SDK_SCHEMA_FILES: RegExp;
export function lazySdkSchemas(): Plugin;
export function lazySchemaModule(source: string, where?: string): string;
