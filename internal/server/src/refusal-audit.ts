import type { Audit, AuditRecord } from '@agent-bridge/bridge';

export interface RefusalAuditOptions {
  audit: Audit;
  /** Refusals recorded one by one per remote address and window. */
  perPeer: number;
  windowMs: number;
  /** Addresses tracked at once; beyond that, new addresses share one bucket. */
  maxPeers: number;
  now: () => number;
}

export interface RefusalAudit {
  /** Records (or counts) one refused handshake from `host`. */
  refused(host: string, record: AuditRecord): void;
  /** Writes the counts of windows that have ended; call periodically and at close. */
  flush(all?: boolean): void;
}

interface Bucket {
  start: number;
  written: number;
  suppressed: number;
}

const SHARED = '*';

/**
 * Refused handshakes cost an attacker almost nothing, so their audit
 * records are sampled: the first `perPeer` refusals from an address in a
 * window are written in full; the next one writes an `audit_sampling`
 * record saying that counting has begun; at the end of the window one
 * `refusals_suppressed` record carries how many were left out. A flood of
 * any size writes at most perPeer + 2 records per address and window, and
 * at most maxPeers addresses are tracked.
 */
export function createRefusalAudit(opts: RefusalAuditOptions): RefusalAudit {
  const buckets = new Map<string, Bucket>();

  const close = (host: string, b: Bucket) => {
    if (b.suppressed > 0) {
      opts.audit({
        kind: 'tls',
        outcome: 'deny',
        reason: 'refusals_suppressed',
        identity: { peer: host },
        detail: `${b.suppressed} more refused handshakes from ${host} between ${new Date(b.start).toISOString()} and ${new Date(b.start + opts.windowMs).toISOString()} were counted, not recorded`,
      });
    }
    buckets.delete(host);
  };

  return {
    refused(host, record) {
      const now = opts.now();
      let key = host;
      if (!buckets.has(key) && buckets.size >= opts.maxPeers) key = SHARED;
      let b = buckets.get(key);
      if (b && now - b.start >= opts.windowMs) {
        close(key, b);
        b = undefined;
      }
      if (!b) {
        b = { start: now, written: 0, suppressed: 0 };
        buckets.set(key, b);
      }
      if (b.written < opts.perPeer) {
        b.written++;
        opts.audit(record);
        return;
      }
      if (b.suppressed === 0) {
        opts.audit({
          kind: 'tls',
          outcome: 'deny',
          reason: 'audit_sampling',
          identity: { peer: key },
          detail: `more than ${opts.perPeer} refused handshakes from ${key} since ${new Date(b.start).toISOString()}: further ones are counted until ${new Date(b.start + opts.windowMs).toISOString()}`,
        });
      }
      b.suppressed++;
    },
    flush(all = false) {
      const now = opts.now();
      for (const [host, b] of [...buckets]) {
        if (all || now - b.start >= opts.windowMs) close(host, b);
      }
    },
  };
}
