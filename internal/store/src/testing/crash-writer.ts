// A process that writes one session's events to the store at `argv[2]` as
// fast as it can, 50 per event-loop turn, and prints "committed <seq>" each
// time the store says they are on disk; the crash test kills it with SIGKILL.
import { LmdbStore } from '../lmdb-store.js';

/** The bytes of event `seq`: 200 of them, each (seq mod 251). */
export const eventBytes = (seq: number) => new Uint8Array(200).fill(seq % 251);

const path = process.argv[2];
if (path) {
  const store = await LmdbStore.open({ path });
  let next = 1;
  const log = store.eventLog('crash', {
    committed: (seq) => process.stdout.write(`committed ${seq}\n`),
    failed: (err) => {
      process.stderr.write(`failed: ${err.message}\n`);
      process.exit(1);
    },
  });
  const turn = () => {
    for (let i = 0; i < 50; i++, next++) log.append(next, eventBytes(next));
    setImmediate(turn);
  };
  turn();
}
