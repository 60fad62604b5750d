// Runs `accord sessions …` as its own process, the way agent/main.ts will.
import { runSessionsCli } from '../../../../agent/log/cli';

void runSessionsCli(process.argv.slice(2)).then((code) => process.exit(code));
