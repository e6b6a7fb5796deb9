import { randomUUID } from 'node:crypto';
import { bearer, call } from '@agent-bridge/harness';
import { GetSessionResponse } from '@agent-bridge/proto';
import type { Metadata } from '@grpc/grpc-js';
import { AGENTS, startBenchBridge } from './bench-bridge.js';
import { inFlight } from './in-flight.js';
import { startReference } from './reference-process.js';
import { against, median, type Row } from './row.js';
import type { Sizes } from './sizes.js';

/**
 * B8: GetSession of an existing session, `inFlight` calls at a time on one
 * connection, with one token for every call (the daemon verifies it once and
 * caches it) and with a fresh token per call (a signature check each).
 * Reference: the bare grpc-js server process answering GetSession with the
 * same response and no authentication, called with the same client and
 * metadata.
 */
export async function unaryRows(s: Sizes): Promise<Row[]> {
  const bridge = await startBenchBridge({});
  const reference = await startReference(bridge.pki);
  const refClient = reference.client;
  try {
    const sessionId = await bridge.start(AGENTS.idle);
    const res = await bridge.call((c) => c.getSession, { sessionId });
    await reference.command({
      cmd: 'unary',
      response: Buffer.from(GetSessionResponse.encode(res).finish()).toString('base64'),
    });
    // Minted before the clock starts; the jti makes each one distinct (the
    // same claims in the same second would sign to the same token).
    const fresh: Metadata[] = [];
    for (let i = 0; i < s.unaryCalls * s.reps; i++) {
      fresh.push(bearer(await bridge.mint({ extra: { jti: randomUUID() } })));
    }
    const rate = async (target: 'daemon' | 'bare', md: (i: number) => Metadata) => {
      const client = target === 'daemon' ? bridge.client : refClient;
      const t0 = process.hrtime.bigint();
      await inFlight(s.unaryCalls, s.inFlight, (i) =>
        call(client, (c) => c.getSession, { sessionId }, md(i)),
      );
      return s.unaryCalls / (Number(process.hrtime.bigint() - t0) / 1e9);
    };
    // Warm both ends up (JIT, connection) before anything is timed.
    for (const client of [bridge.client, refClient]) {
      await inFlight(Math.min(1000, s.unaryCalls), s.inFlight, () =>
        call(client, (c) => c.getSession, { sessionId }, bridge.md),
      );
    }
    const runs = { same: [] as number[], fresh: [] as number[], bare: [] as number[] };
    for (let rep = 0; rep < s.reps; rep++) {
      runs.same.push(await rate('daemon', () => bridge.md));
      // A token is fresh only once: each repetition has its own.
      runs.fresh.push(await rate('daemon', (i) => fresh[rep * s.unaryCalls + i]!));
      runs.bare.push(await rate('bare', () => bridge.md));
    }
    const bare = {
      name: 'bare unary, no auth',
      value: median(runs.bare),
      unit: 'calls/s',
      ceiling: true,
    };
    const row = (name: string, xs: number[], target?: Row['target']) =>
      against({
        id: 'B8',
        name,
        value: median(xs),
        unit: 'calls/s',
        better: 'higher',
        ref: bare,
        ...(target ? { target } : {}),
      });
    return [
      row(`GetSession, ${s.inFlight} in flight, same token`, runs.same, { min: 0.9, on: 'ratio' }),
      row(`GetSession, ${s.inFlight} in flight, fresh token per call`, runs.fresh),
    ];
  } finally {
    await reference.stop();
    await bridge.close();
  }
}
