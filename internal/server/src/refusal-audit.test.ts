import type { AuditRecord } from '@agent-bridge/bridge';
import { describe, expect, it } from 'vitest';
import { createRefusalAudit } from './refusal-audit.js';

const MINUTE = 60_000;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/** A refusal audit as the TLS listener configures it, on a clock the test moves. */
function setup(maxPeers = 1024) {
  const written: AuditRecord[] = [];
  const clock = { now: T0 };
  const refusals = createRefusalAudit({
    audit: (r) => written.push(r),
    perPeer: 20,
    windowMs: MINUTE,
    maxPeers,
    now: () => clock.now,
  });
  const refuse = (host: string, n: number, reason = 'untrusted_issuer') => {
    for (let i = 0; i < n; i++) {
      refusals.refused(host, {
        kind: 'tls',
        outcome: 'deny',
        reason,
        identity: { peer: `${host}:${40_000 + i}` },
      });
    }
  };
  return { written, clock, refusals, refuse, reasons: () => written.map((r) => r.reason) };
}

describe('createRefusalAudit', () => {
  it('writes the 20th refusal of a minute in full and answers the 21st with one audit_sampling record', () => {
    const { written, refuse, reasons } = setup();
    refuse('10.0.0.1', 20);
    expect(reasons()).toEqual(Array(20).fill('untrusted_issuer'));
    expect(written[19]?.identity).toEqual({ peer: '10.0.0.1:40019' });
    refuse('10.0.0.1', 1);
    expect(written).toHaveLength(21);
    expect(written[20]).toMatchObject({
      kind: 'tls',
      outcome: 'deny',
      reason: 'audit_sampling',
      identity: { peer: '10.0.0.1' },
      detail: expect.stringContaining('more than 20 refused handshakes from 10.0.0.1'),
    });
    refuse('10.0.0.1', 500);
    expect(written).toHaveLength(21);
  });

  it('writes refusals_suppressed with the count once the minute is over, not before', () => {
    const { written, clock, refusals, refuse } = setup();
    refuse('10.0.0.1', 20 + 37);
    clock.now = T0 + MINUTE - 1;
    refusals.flush();
    expect(written).toHaveLength(21);
    clock.now = T0 + MINUTE;
    refusals.flush();
    expect(written).toHaveLength(22);
    expect(written[21]).toMatchObject({
      reason: 'refusals_suppressed',
      identity: { peer: '10.0.0.1' },
      detail: `37 more refused handshakes from 10.0.0.1 between 2030-01-01T00:00:00.000Z and 2030-01-01T00:01:00.000Z were counted, not recorded`,
    });
    refusals.flush();
    expect(written).toHaveLength(22);
  });

  it('writes no summary for a minute that stayed within the budget', () => {
    const { written, clock, refusals, refuse } = setup();
    refuse('10.0.0.1', 20);
    clock.now = T0 + 2 * MINUTE;
    refusals.flush(true);
    expect(written).toHaveLength(20);
  });

  it('starts a new minute with a full budget, closing the old one with its summary', () => {
    const { written, clock, refuse, reasons } = setup();
    refuse('10.0.0.1', 25);
    clock.now = T0 + MINUTE;
    refuse('10.0.0.1', 20);
    expect(reasons().slice(20)).toEqual([
      'audit_sampling',
      'refusals_suppressed',
      ...Array(20).fill('untrusted_issuer'),
    ]);
    expect(written[21]?.detail).toMatch(/^5 more refused handshakes/);
    refuse('10.0.0.1', 1);
    expect(written.at(-1)?.reason).toBe('audit_sampling');
  });

  it('gives each address its own budget', () => {
    const { refuse, reasons } = setup();
    refuse('10.0.0.1', 21);
    refuse('10.0.0.2', 20);
    expect(reasons().filter((r) => r === 'untrusted_issuer')).toHaveLength(40);
    expect(reasons().filter((r) => r === 'audit_sampling')).toHaveLength(1);
  });

  it('pools addresses beyond the cap into one shared budget, so a spread flood stays bounded', () => {
    const { written, clock, refusals, refuse, reasons } = setup(2);
    refuse('10.0.0.1', 1);
    refuse('10.0.0.2', 1);
    // 100 more addresses, 3 refusals each: 20 written in full between all of them.
    for (let i = 0; i < 100; i++) refuse(`10.0.1.${i}`, 3);
    expect(reasons().filter((r) => r === 'untrusted_issuer')).toHaveLength(22);
    expect(written.filter((r) => r.reason === 'audit_sampling')).toEqual([
      expect.objectContaining({ identity: { peer: '*' } }),
    ]);
    // A tracked address keeps its own budget while the pool is spent.
    refuse('10.0.0.1', 1);
    expect(written.at(-1)?.identity).toEqual({ peer: '10.0.0.1:40000' });
    clock.now = T0 + MINUTE;
    refusals.flush();
    expect(written.at(-1)).toMatchObject({
      reason: 'refusals_suppressed',
      identity: { peer: '*' },
      detail: expect.stringMatching(/^280 more refused handshakes from \* /),
    });
  });

  it('frees the slots of ended minutes for new addresses', () => {
    const { written, clock, refusals, refuse } = setup(1);
    refuse('10.0.0.1', 1);
    clock.now = T0 + MINUTE;
    refusals.flush();
    refuse('10.0.0.2', 21);
    expect(written.at(-1)).toMatchObject({
      reason: 'audit_sampling',
      identity: { peer: '10.0.0.2' },
    });
  });

  it('flush(true) at close writes the counts of minutes still running', () => {
    const { written, refusals, refuse } = setup();
    refuse('10.0.0.1', 23);
    refusals.flush(true);
    expect(written.at(-1)).toMatchObject({
      reason: 'refusals_suppressed',
      detail: expect.stringMatching(/^3 more/),
    });
  });
});
