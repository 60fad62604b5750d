// A second process for the log tests (run with `node --import tsx`):
//   hold <dataDir> <id>        open the session, print "ready <pid>", wait to be killed
//   append <dataDir> <id>      append chunks forever; after each durable batch print "committed <seq>"
//   open <dataDir> <id>        try to open; print one JSON line with the outcome, exit
import { LogError, LogLockedError, SessionStore } from '../../../../agent/log';

const [mode, dataDir, id] = process.argv.slice(2);
const store = new SessionStore(dataDir);

async function main(): Promise<void> {
  if (mode === 'open') {
    try {
      const log = await store.open(id!);
      await log.close();
      console.log(JSON.stringify({ ok: true }));
    } catch (error) {
      const holder = error instanceof LogLockedError ? error.holderPid : undefined;
      console.log(JSON.stringify({ ok: false, code: error instanceof LogError ? error.code : String(error), holder, message: (error as Error).message }));
    }
    return;
  }
  const log = await store.open(id!);
  if (mode === 'hold') {
    console.log(`ready ${process.pid}`);
    setInterval(() => undefined, 60_000);
    return;
  }
  log.append({ type: 'turn_start' });
  for (let i = 0; ; i++) {
    const text = `chunk ${i} `.padEnd(40 + (i % 13), 'x');
    const at = log.append({ type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } }, { durable: i % 25 === 0 });
    if (i % 25 === 0) {
      await at.committed;
      console.log(`committed ${at.seq}`);
    } else if (i % 5 === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

void main();
