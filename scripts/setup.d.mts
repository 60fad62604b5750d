// Types for scripts/setup.mjs, for the TypeScript tests that use it.
export interface DebianPackage { name: string; for: 'start' | 'test'; why: string }
export const debianPackages: DebianPackage[];
export function packagesFor(command: 'start' | 'test'): string[];
export function missingDebianPackages(names: string[]): string[] | undefined;
export interface AptRunner { prefix: string[]; how: string }
export type DebianPlan =
  | { action: 'none' }
  | { action: 'stop'; byHand: string; message: string }
  | { action: 'install'; byHand: string; prefix: string[]; line: string };
export function planDebianInstall(command: 'start' | 'test', missing: string[], runner: AptRunner | undefined): DebianPlan;
export function ensureDebianPackages(command: 'start' | 'test'): void;
export function staleNodeModules(dir?: string): string | undefined;
export function ensureNodeModules(): void;
export function setUp(command: 'start' | 'test'): void;
