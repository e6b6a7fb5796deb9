/**
 * D3: connections that never finish TLS are closed by the handshake
 * timeout, the daemon keeps serving, memory stays bounded and the audit
 * trail is sampled rather than flooded.
 */
import { readFileSync } from 'node:fs';
import { type Socket, connect as tcpConnect } from 'node:net';
import { within } from '@agent-bridge/harness';
import { describe, expect, it } from 'vitest';
import { useWorld } from './helpers.js';

const FLOOD = 200;
/** Refusals audited one by one per address and window (tls-listener.ts). */
const PER_PEER = 20;

const rssKiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

describe('D3 half-open TLS connections', () => {
  const w = useWorld({ config: { server: { handshake_timeout: '1s' } } });

  it(`D3 ${FLOOD} TCP connections that never send a ClientHello are closed by the handshake timeout; the daemon serves; RSS bounded; audit sampled`, async () => {
    const rssBefore = rssKiB(w.daemon.pid);
    const mark = w.daemon.audit.mark();
    const sockets: Socket[] = [];
    const closed = Promise.all(
      Array.from(
        { length: FLOOD },
        () =>
          new Promise<void>((resolve) => {
            const s = tcpConnect(w.daemon.port, '127.0.0.1');
            s.on('error', () => undefined);
            s.on('close', () => resolve());
            sockets.push(s);
          }),
      ),
    );
    try {
      await within(`the daemon to close all ${FLOOD} half-open connections`, closed, 20_000);
    } finally {
      for (const s of sockets) s.destroy();
    }
    const h = await w.call((c) => c.health, {});
    expect(h.status).toBe('serving');
    // Generous: 200 sockets and their TLS state are far below this.
    expect(rssKiB(w.daemon.pid) - rssBefore).toBeLessThan(100 * 1024);
    const tls = w.daemon.audit.since(mark).filter((r) => r.kind === 'tls');
    expect(tls.filter((r) => r.reason === 'handshake_timeout')).toHaveLength(PER_PEER);
    expect(tls.filter((r) => r.reason === 'audit_sampling')).toHaveLength(1);
    expect(tls).toHaveLength(PER_PEER + 1);
    expect(tls[0]?.peer).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});
