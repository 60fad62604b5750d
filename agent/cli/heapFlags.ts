// Keeps V8's young generation at its initial 1 MB semi-spaces. By default it
// grows to 16 MB semi-spaces (32 MB resident) under a turn's short-lived
// garbage, the largest single item of the agent's resident memory (peak of a
// streamed turn 127-141 MB without this, about 100 MB with it, load 11; the
// extra scavenges cost little: the garbage dies young). Set at run time because
// an editor starts `node dist/agent.js` with no flags of ours; it must run
// before any bundle is compiled, so that every process has the same V8 flags
// and the compile cache made by one is accepted by the next.
// ACCORD_SMALL_HEAP=off keeps V8's defaults (for comparing).
import { setFlagsFromString } from 'node:v8';

if (process.env.ACCORD_SMALL_HEAP !== 'off') setFlagsFromString('--semi-space-growth-factor=1');
