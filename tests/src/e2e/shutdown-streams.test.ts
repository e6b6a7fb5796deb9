/**
 * At a daemon's shutdown, a stream still open when the grace for open
 * calls ends is ended with UNAVAILABLE ("the daemon is shutting down"),
 * not cut (docs/operations.md, "Run as a service").
 *
 * Which streams are still open then: the daemon stops every session
 * (each stream gets its terminal event) before the server's grace begins,
 * so a stream whose reader keeps up ends OK with that event (F9). Open at
 * the end of the grace is a stream whose reader has not taken what is
 * left: here a reader slower than the daemon writes, over a session whose
 * buffer holds far more than it can read in that time.
 */

import { showEvents, status, useDaemon, waitFor, within } from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';

/** Lines the session's agent prints before it waits for input, and their width. */
const LINES = 10_000;
const WIDTH = 2_000;
/**
 * The reader takes at most PER_TICK events every TICK_MS: about 1,000
 * events a second at most, so the LINES buffered take it some 10 s or more,
 * far longer than the session's stop and the server's grace (2 s). This
 * paces the reader (the scenario: a reader slower than the daemon); no
 * step of the test waits for a time.
 */
const PER_TICK = 10;
const TICK_MS = 10;

const bridge = useDaemon({
  config: {
    sessions: { event_buffer_size: LINES * 2, event_buffer_bytes: '64MiB' },
  },
  fakeProviders: { lines: ['lines', String(LINES), String(WIDTH)] },
});

/** Reads `stream` at a bounded pace; `ended` resolves with the error it ended with (undefined: OK). */
function slowReader(stream: ClientReadableStream<SessionEvent>) {
  const events: SessionEvent[] = [];
  let budget = PER_TICK;
  stream.on('data', (e: SessionEvent) => {
    events.push(e);
    if (--budget <= 0) stream.pause();
  });
  const pace = setInterval(() => {
    budget = PER_TICK;
    stream.resume();
  }, TICK_MS);
  pace.unref();
  const ended = new Promise<ServiceError | undefined>((resolve) => {
    stream.on('error', (err: ServiceError) => resolve(err));
    stream.on('end', () => resolve(undefined));
  }).finally(() => clearInterval(pace));
  return { events, ended };
}

const isTerminal = (e: SessionEvent) =>
  e.type === EventType.EVENT_TYPE_SESSION_STOPPED || e.type === EventType.EVENT_TYPE_SESSION_FAILED;

describe('daemon shutdown with an event stream still open', () => {
  it('ends the stream with UNAVAILABLE when the grace for open calls ends, then exits', {
    timeout: 60_000,
  }, async () => {
    const s = await bridge.sessions().start('lines');
    await waitFor(
      `session ${s.sessionId} to hold its ${LINES} lines`,
      async () => Number((await s.get()).lastSeq) >= LINES,
      30_000,
    );
    const reader = slowReader(bridge.stream({ sessionId: s.sessionId, afterSeq: 0n }));
    await waitFor('the reader to be reading', () => reader.events.length >= PER_TICK * 2);

    bridge.daemon.proc.kill('SIGTERM');
    const err = await within('the stream to end', reader.ended, 30_000);
    const seen = () =>
      `${reader.events.length} events read; the last:\n${showEvents(reader.events.slice(-3))}`;
    expect(err, `the stream ended OK: ${seen()}`).toBeDefined();
    expect({ code: status[err!.code], details: err!.details }, seen()).toEqual({
      code: 'UNAVAILABLE',
      details: 'the daemon is shutting down',
    });
    // Ended by the daemon going, not by the session's end: the reader never got there.
    expect(reader.events.some(isTerminal), seen()).toBe(false);
    expect(Number(reader.events.at(-1)!.seq)).toBeLessThan(LINES);

    const { code } = await within('the daemon to exit', bridge.daemon.exited, 20_000);
    expect(code).toBe(0);
  });
});
