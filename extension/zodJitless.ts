// Imported first by extension.ts, before any module builds a zod schema.
// zod's JIT probe reads `globalThis.navigator`, which VS Code's extension
// host reports as an error ("navigator is now a global in nodejs") on every
// activation. Schemas built after this line never probe; they validate the
// same, without generated code.
import { config } from 'zod/mini';

config({ jitless: true });
