import { StartupError } from '../contract/errors.js';
import { untilAborted } from './abortable.js';

interface Home {
  /** A start-up in this home has succeeded: the CLI has created its state. */
  initialised: boolean;
  /** The start-up that runs alone while the home is not initialised yet. */
  pioneer: Promise<void> | undefined;
}

/**
 * Lets start-ups of a CLI in a home it has not initialised yet run one at
 * a time. Agent CLIs create the state they keep under their home (sqlite
 * databases, migrations, installed skills) at their first start, and two
 * first starts at once in the same home break each other (codex: "failed
 * to initialize sqlite state runtime", opencode: "database is locked").
 * Once one start-up in a home has succeeded, the state exists and every
 * later start-up runs at once, side by side. If the first fails, the next
 * one waiting goes alone in its place. One gate serves every provider
 * built together, so two providers running the same CLI in the same home
 * share it too.
 */
export class StartupGate {
  private readonly homes = new Map<string, Home>();

  /**
   * Runs `start` as soon as it may: at once in an initialised home, else
   * once no other start-up in the home runs. A start-up waiting its turn
   * gives up when `signal` aborts. `start` is called only when the turn
   * has come, so the caller's clock for the start-up proper starts there.
   */
  async run<T>(key: string, signal: AbortSignal, start: () => Promise<T>): Promise<T> {
    let home = this.homes.get(key);
    if (!home) {
      home = { initialised: false, pioneer: undefined };
      this.homes.set(key, home);
    }
    while (!home.initialised && home.pioneer) {
      // The pioneer's promise never rejects: only the signal ends this wait early.
      await untilAborted(home.pioneer, signal).catch(() => {
        throw abandoned();
      });
    }
    if (home.initialised) return start();
    const first = start();
    const ended = first.then(
      () => {
        home.initialised = true;
      },
      () => undefined,
    );
    home.pioneer = ended.finally(() => {
      home.pioneer = undefined;
    });
    return first;
  }
}

const abandoned = () =>
  new StartupError(
    'start-up was abandoned while another session of this agent was starting in the same home',
  );
