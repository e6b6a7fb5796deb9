import type { Provider } from '@agent-bridge/providers';
import type { Audit } from '../audit.js';
import type { Clock, Timers } from '../clock.js';
import type { EventCodec } from '../events/event-codec.js';
import type { EventObserver } from '../events/event-observer.js';
import type { CoreSettings, Logger } from '../types.js';

/** What the core is built with: settings and providers, and the seams a daemon or a test fills in. */
export interface SessionManagerDeps {
  settings: CoreSettings;
  providers: ReadonlyMap<string, Provider>;
  logger: Logger;
  clock?: Clock;
  /** Timers for start-up deadlines and the sweeper; a test passes a fake driven by its clock. */
  timers?: Timers;
  redactPatterns?: readonly RegExp[];
  /** Where session lifecycle and permission records go. */
  audit?: Audit;
  /** Counts events stored and delivered (metrics). */
  observer?: EventObserver;
  /** How rings hold events: the daemon passes its wire encoding so each event is encoded once. JSON unless given. */
  codec?: EventCodec;
  /**
   * The identity of the history this manager's sessions, events and
   * cursors belong to. Kept in memory, they begin anew with the process,
   * so it is new each time unless given. Acknowledgements name it.
   */
  historyId?: string;
}
