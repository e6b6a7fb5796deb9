/**
 * F6: output in awkward shapes becomes lines exactly: one line written in
 * two pieces, invalid UTF-8, a line longer than the limit, and a last line
 * without a newline when the agent exits.
 */

import { collect, useDaemon } from '@agent-bridge/harness';
import { EventType } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const bridge = useDaemon({ fakeProviders: { split: ['split'] } });

describe('F6 output shapes', () => {
  it('F6 joined writes, U+FFFD for invalid bytes, an over-long line in flagged pieces, the final partial line flushed', async () => {
    const { sessionId } = await bridge.sessions().start('split');
    const { events } = await collect(bridge.stream({ sessionId, afterSeq: 0n }));
    const out = events
      .filter((e) => e.type === EventType.EVENT_TYPE_STDOUT)
      .map((e) => [e.text, e.data]);
    expect(out).toHaveLength(6);
    expect(out.slice(0, 3)).toEqual([
      ['ready', undefined],
      ['abcdef', undefined],
      ['ok\ufffd\ufffd', undefined],
    ]);
    // The 70,000-byte line arrives as a continued piece and its last piece.
    // Redaction holds back the end of a piece and stores it at the front of
    // the next one (internal/bridge/README.md, "Redaction"), so the pieces
    // join to the line but need not be cut at 64 KiB.
    const long = out.slice(3, 5);
    expect(long.map(([, data]) => data)).toEqual([{ continued: true }, undefined]);
    expect(long.map(([text]) => text).join('')).toBe('L'.repeat(70000));
    expect(out[5]).toEqual(['partial-without-newline', undefined]);
    expect(events.at(-1)?.type).toBe(EventType.EVENT_TYPE_SESSION_STOPPED);
  });
});
