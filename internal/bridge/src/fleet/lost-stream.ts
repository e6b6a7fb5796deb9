import type { EventCodec, SessionIdentity } from '../events/event-codec.js';
import { EventSlice, type SliceParts } from '../events/event-slice.js';
import type { BatchLimits, EventStream } from '../events/subscriptions.js';
import type { SessionElsewhere } from './sessions-elsewhere.js';

/**
 * A lost session's history as an event stream: its events after `afterSeq`
 * as the fleet holds them, in slices within `batch`, then its end. When
 * what the fleet holds does not end with a terminal event (its daemon died
 * before it could record one, or before the fleet had it), the stream ends
 * with `end` (SESSION_FAILED, `host_lost`), one seq after the last held, so
 * a reader knows nothing more will come from here.
 */
export function lostStream(
  s: SessionElsewhere,
  afterSeq: number,
  end: { seq: number; bytes: Uint8Array } | undefined,
  codec: EventCodec,
  batch: BatchLimits,
  signal: AbortSignal,
): EventStream {
  const session: SessionIdentity = {
    sessionId: s.sessionId,
    projectId: s.projectId,
    provider: s.request.provider,
  };
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  async function* slices(): AsyncGenerator<EventSlice> {
    let parts = emptyParts();
    let first = 0;
    let bytes = 0;
    let next = afterSeq + 1;
    const cut = (terminal: boolean) => {
      const slice = new EventSlice(first, parts, terminal, codec, session);
      parts = emptyParts();
      bytes = 0;
      return slice;
    };
    const add = (seq: number, data: Uint8Array) => {
      if (parts.lengths.length === 0) first = seq;
      parts.chunks.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      parts.starts.push(0);
      parts.lengths.push(data.byteLength);
      bytes += data.byteLength;
      next = seq + 1;
    };
    for await (const e of s.events(afterSeq, both)) {
      if (e.seq < next) continue;
      // A gap (events the fleet never got) ends the slice: a slice's seqs are consecutive.
      const full = parts.lengths.length >= batch.maxEvents || bytes >= batch.maxBytes;
      if (parts.lengths.length > 0 && (full || e.seq !== next)) yield cut(false);
      add(e.seq, e.bytes);
    }
    // The last slice carries the end: the history's own terminal event or `end`.
    if (end && end.seq >= next) {
      if (parts.lengths.length >= batch.maxEvents) yield cut(false);
      add(end.seq, end.bytes);
    }
    if (parts.lengths.length > 0) yield cut(true);
  }
  const it = slices();
  return {
    session,
    [Symbol.asyncIterator]: () => it,
    close: () => stop.abort(),
  };
}

const emptyParts = (): SliceParts => ({ chunks: [], starts: [], lengths: [] });
