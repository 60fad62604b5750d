// The panel protocol's version, on its own so the panel's first module
// (webview/boot.ts) can say `ready` before zod and the schemas are loaded.
export const PROTOCOL_VERSION = 1;
