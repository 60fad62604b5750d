/** Injected by esbuild from package.json's version. */
declare const ACCORD_VERSION: string;
