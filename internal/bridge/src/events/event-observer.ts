import type { BridgeEvent } from './event.js';

/**
 * What the daemon may count about the event path (for metrics) without the
 * core knowing how it is counted. Both calls are made synchronously on the
 * hot path, once per event stored and once per batch handed to a reader,
 * so an implementation should do no more than add to counters.
 */
export interface EventObserver {
  /** `event` entered the ring of a session of `provider`; `bytes` of its encoding. */
  stored(provider: string, event: BridgeEvent, bytes: number): void;
  /** A batch of `count` events, `bytes` of encoding, left the core for one reader; `overflow` when it is the reader's overflow notice. */
  delivered(count: number, bytes: number, overflow: boolean): void;
}

/** Counts nothing: for embedders and tests without metrics. */
export const noEventObserver: EventObserver = {
  stored: () => undefined,
  delivered: () => undefined,
};
