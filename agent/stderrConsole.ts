// Imported first by main.ts: stdout carries the protocol only, so every
// console method writes to stderr before any other module can log.
const toStderr = (...args: unknown[]) => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
console.warn = toStderr;
// The ai SDK prints provider warnings through its own global switch.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
