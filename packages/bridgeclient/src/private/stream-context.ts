import type { BridgeServiceClient } from '@agent-bridge/proto';
import type { AckContext } from '../acker.js';
import type { CursorStore } from '../cursor-store.js';
import type { CallOptions } from '../options.js';
import type { Health, SessionEvent } from '../types.js';
import type { Backoff } from './backoff.js';

/** The client calls an EventStream makes. */
interface StreamClient {
  readonly target: string;
  readonly projectId: string;
  health(opts: CallOptions): Promise<Health>;
}

/** What an EventStream needs from its client. */
export interface StreamContext extends Pick<AckContext, 'sendAck'> {
  client: StreamClient;
  /**
   * The daemon's channel: its client is taken afresh for each connection,
   * and `connection()` tells which connection it is on (see DaemonChannel).
   */
  channel: { readonly raw: BridgeServiceClient; connection(): number | undefined };
  cursors: CursorStore;
  backoff: Backoff;
  reconnectMs: number;
  /** Aborted when the client is closed: its streams end with an error saying so. */
  clientClosed: AbortSignal;
  /** Makes the next call use a freshly minted token. */
  renewToken(): void;
}

/** Where a stream's reading stands, as its EventStream shows it. */
export interface StreamPosition {
  readonly processedSeq: number | undefined;
  readonly historyId: string;
}

/**
 * What a fleet gives the EventStream it returns at once: the session's
 * daemon is not known yet, and finding it is part of the iteration, so
 * its failure surfaces where a failed connection would.
 */
export interface StreamFinder {
  /** Aborted when the fleet is closed (it closes its clients): the stream ends with an error saying so. */
  clientClosed: AbortSignal;
  /** Finds the session's daemon and opens its client's stream, under `signal` (the stream's lifetime). */
  open(signal: AbortSignal): Promise<StreamPosition & AsyncIterable<SessionEvent>>;
}
