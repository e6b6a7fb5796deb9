import type { Provider } from '@agent-bridge/providers';
import type { Audit } from '../audit.js';
import type { Clock, Timers } from '../clock.js';
import type { ToolServers } from '../collaboration/collab-ports.js';
import type { CollabRelay } from '../collaboration/fleet-posts.js';
import type { EventCodec } from '../events/event-codec.js';
import type { EventObserver } from '../events/event-observer.js';
import type { BucketLimit } from '../limits/token-buckets.js';
import type { SessionStore } from '../store/session-store.js';
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
   * Where sessions are kept, and the identity of the history they belong
   * to (acknowledgements name it). Memory unless given: nothing outlives
   * the process, and the history is new each time.
   */
  store?: SessionStore;
  /** The history id of the memory store used when no `store` is given (tests); new each time unless given. */
  historyId?: string;
  /** Posts and messages each author may make (COLLAB_RATE unless given). */
  collabRate?: BucketLimit;
  /** How agents get their collaboration tools (the daemon's tool socket); none unless given. */
  toolServers?: ToolServers;
  /** In a fleet: where the context bus's posts made here go to the other daemons. */
  collabRelay?: CollabRelay;
}
