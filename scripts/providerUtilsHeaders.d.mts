// Types for scripts/providerUtilsHeaders.mjs, for the TypeScript tests that use it.
import type { Plugin } from 'esbuild';
export const providerUtilsDist: string;
export function isProviderUtilsEntry(file: string): boolean;
export function withoutGlobalHeaders(source: string, file: string): string;
export function providerUtilsPlainHeaders(options: { required: boolean }): Plugin;
