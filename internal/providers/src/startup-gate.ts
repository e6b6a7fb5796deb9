import { StartupError } from './supervised-process.js';

/**
 * Lets only one agent at a time start up per key: agent CLIs initialise the
 * state they keep under their home (sqlite databases, installed skills) as
 * they start, and two starting at once in the same home can break each
 * other (codex: "failed to initialize sqlite state runtime", opencode:
 * "database is locked"). Start-ups queue in order; a session waiting its
 * turn gives up when its start-up is abandoned. One gate serves every
 * provider built together, so two providers running the same CLI in the
 * same home share it too.
 */
export class StartupGate {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `start` once every earlier start-up with the same key has finished, either way. */
  async run<T>(key: string, signal: AbortSignal, start: () => Promise<T>): Promise<T> {
    const earlier = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Whoever comes next waits for the earlier ones too, even if this one gives up waiting.
    const tail = earlier.then(() => mine);
    this.tails.set(key, tail);
    try {
      await untilAborted(earlier, signal);
      return await start();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

function untilAborted(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abandoned());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abandoned());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

const abandoned = () =>
  new StartupError(
    'start-up was abandoned while another session of this agent was starting in the same home',
  );
