import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import {
  bearer,
  codeOf,
  createTestPki,
  ofType,
  parseExposition,
  ScrapeFailed,
  scrape,
  status,
  type TestPki,
  turnsDone,
  useDaemon,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { type CertAndKey, createCrl, issueCert } from '@agent-bridge/pki';
import { EventType, PermissionDecision, SessionStatus } from '@agent-bridge/proto';
import { beforeAll, describe, expect, it } from 'vitest';

const value = (samples: Map<string, number>, key: string) => samples.get(key) ?? 0;

describe('metrics over mutual TLS', () => {
  // A client certificate the daemon's CRL revokes, made before it starts.
  let pki: TestPki;
  let revoked: CertAndKey;
  let crl: string;
  beforeAll(async () => {
    pki = await createTestPki();
    revoked = await issueCert({ type: 'client', cn: 'revoked-scraper', ca: pki.ca });
    crl = join(pki.dir, 'metrics-test.crl.pem');
    writeFileSync(
      crl,
      await createCrl({
        ca: pki.ca,
        revoked: [{ serialHex: new X509Certificate(revoked.certPem).serialNumber }],
      }),
    );
  });
  const bridge = useDaemon(() => ({
    pki,
    config: {
      metrics: { listen: '127.0.0.1:0' },
      tls: { crl: [crl] },
      providers: { mock_ask: { adapter: 'mock', permissions: 'ask' } },
    },
  }));
  const metrics = async () => {
    const port = bridge.daemon.metricsPort;
    if (port === undefined) throw new Error('the daemon reported no metrics port');
    const res = await scrape(port, bridge.pki.ca.certPem, bridge.pki.client);
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(res.body);
  };

  it('counts permission requests waiting, then the decision and who made it', async () => {
    const s = await bridge.sessions().start('mock_ask');
    await s.send('/tool Bash ls -la');
    const asked = await s.events((all) =>
      all.some((e) => e.type === EventType.EVENT_TYPE_PERMISSION_REQUESTED),
    );
    const requestId = ofType(asked, EventType.EVENT_TYPE_PERMISSION_REQUESTED)[0]?.data
      ?.request_id as string;
    const decided =
      'bridge_permission_decisions_total{provider="mock_ask",decision="deny",decided_by="caller"}';
    const waiting = await metrics();
    expect(value(waiting, 'bridge_permission_requests_waiting{provider="mock_ask"}')).toBe(1);
    expect(value(waiting, decided)).toBe(0);
    await bridge.call((c) => c.respondPermission, {
      sessionId: s.sessionId,
      requestId,
      decision: PermissionDecision.PERMISSION_DECISION_DENY,
      reason: '',
    });
    await s.events(turnsDone(1));
    const after = await metrics();
    expect(value(after, 'bridge_permission_requests_waiting{provider="mock_ask"}')).toBe(0);
    expect(value(after, decided)).toBe(1);
    await s.stop();
  });

  it('counts sessions, events in and out, auth decisions and call latency', async () => {
    const before = await metrics();
    const s = await bridge.sessions().start('mock');
    await waitFor(
      'the session to run',
      async () => (await s.get()).status === SessionStatus.SESSION_STATUS_RUNNING,
    );
    await s.send('hello');
    const seen = await s.events(turnsDone(1));
    const denied = await codeOf(
      bridge.call((c) => c.getSession, { sessionId: s.sessionId }, bearer('not-a-token')),
    );
    expect(denied).toBe(status.UNAUTHENTICATED);

    const after = await metrics();
    expect(value(after, 'bridge_sessions{provider="mock",state="RUNNING"}')).toBe(1);
    const inMock = 'bridge_events_in_total{provider="mock"}';
    expect(value(after, inMock) - value(before, inMock)).toBeGreaterThanOrEqual(seen.length);
    expect(value(after, 'bridge_event_bytes_in_total{provider="mock"}')).toBeGreaterThan(
      value(before, 'bridge_event_bytes_in_total{provider="mock"}'),
    );
    expect(
      value(after, 'bridge_events_out_total') - value(before, 'bridge_events_out_total'),
    ).toBeGreaterThanOrEqual(seen.length);
    expect(value(after, 'bridge_event_bytes_out_total')).toBeGreaterThan(0);
    const denials = (m: Map<string, number>) =>
      [...m.entries()]
        .filter(([k]) => k.startsWith('bridge_auth_decisions_total{kind="call",outcome="deny"'))
        .reduce((n, [, v]) => n + v, 0);
    // Exactly the one bad token; its reason is the token check's stable code.
    expect(denials(after) - denials(before)).toBe(1);
    expect(
      value(after, 'bridge_auth_decisions_total{kind="call",outcome="allow",reason="ok"}'),
    ).toBeGreaterThan(
      value(before, 'bridge_auth_decisions_total{kind="call",outcome="allow",reason="ok"}'),
    );
    expect(
      value(after, 'bridge_rpc_duration_seconds_count{method="StartSession",code="OK"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(after, 'bridge_rpc_duration_seconds_count{method="GetSession",code="UNAUTHENTICATED"}'),
    ).toBe(1);
    expect(value(after, 'bridge_subscribers{provider="mock"}')).toBeGreaterThanOrEqual(0);
    expect(after.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect(after.has('process_cpu_user_seconds_total')).toBe(true);

    await s.stop();
    await waitFor(
      'the session to stop',
      async () => (await s.get()).status === SessionStatus.SESSION_STATUS_STOPPED,
    );
    const ended = await metrics();
    expect(value(ended, 'bridge_agent_exits_total{provider="mock",outcome="stopped"}')).toBe(1);
    expect(value(ended, 'bridge_sessions{provider="mock",state="STOPPED"}')).toBe(1);
    expect(ended.has('bridge_sessions{provider="mock",state="RUNNING"}')).toBe(false);
  });

  it('refuses a client without a certificate: a TLS error, no HTTP response', async () => {
    const port = bridge.daemon.metricsPort as number;
    await expect(scrape(port, bridge.pki.ca.certPem)).rejects.toThrow(
      /certificate|alert|socket hang up|ECONNRESET/i,
    );
  });

  it('refuses a certificate from another CA', async () => {
    const port = bridge.daemon.metricsPort as number;
    await expect(scrape(port, bridge.pki.ca.certPem, bridge.pki.rogueClient)).rejects.toThrow(
      /unknown ca|alert|socket hang up|ECONNRESET/i,
    );
  });

  it('audits every refused handshake as the gRPC port does: no certificate, another CA, revoked', async () => {
    const port = bridge.daemon.metricsPort as number;
    const mark = bridge.daemon.audit.mark();
    // Each refusal is found by its connection's port: the records of the
    // tests before this one may still be on their way to the audit file.
    const peers: string[] = [];
    for (const client of [undefined, bridge.pki.rogueClient, revoked]) {
      const failed = await scrape(port, bridge.pki.ca.certPem, client).then(
        () => expect.unreachable('the scrape was refused'),
        (err: unknown) => err as ScrapeFailed,
      );
      expect(failed).toBeInstanceOf(ScrapeFailed);
      expect(failed.message).toMatch(/certificate|alert|socket hang up|ECONNRESET|closed/i);
      expect(failed.localPort).toBeGreaterThan(0);
      peers.push(`127.0.0.1:${failed.localPort}`);
    }
    const ours = () =>
      bridge.daemon.audit
        .since(mark)
        .filter((r) => r.kind === 'tls' && peers.includes(r.peer ?? ''));
    await waitFor('three refused metrics handshakes in the audit file', () => ours().length >= 3);
    const refused = peers.map((peer) => ours().filter((r) => r.peer === peer));
    expect(refused.map((rs) => rs.map((r) => r.reason))).toEqual([
      ['no_client_certificate'],
      ['untrusted_issuer'],
      ['cert_revoked'],
    ]);
    for (const r of refused.flat()) {
      expect(r).toMatchObject({
        outcome: 'deny',
        peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      });
      expect(r.detail).toMatch(/^metrics listener: /);
    }
    expect(refused[2]?.[0]).toMatchObject({
      cert_serial: new X509Certificate(revoked.certPem).serialNumber,
    });
  });

  it('answers plaintext HTTP with nothing', async () => {
    const port = bridge.daemon.metricsPort as number;
    const outcome = await within(
      'a plaintext request to end',
      new Promise<string>((resolve) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/metrics', agent: false },
          (res) => resolve(`HTTP ${res.statusCode}`),
        );
        req.on('error', (err) => resolve(`error ${err.message}`));
        req.end();
      }),
    );
    expect(outcome).toMatch(/^error /);
  });

  it('serves only /metrics', async () => {
    const port = bridge.daemon.metricsPort as number;
    const res = await scrape(port, bridge.pki.ca.certPem, bridge.pki.client, '/');
    expect(res.status).toBe(404);
  });
});

describe('metrics listener and TLS reload', () => {
  const bridge = useDaemon({ config: { metrics: { listen: '127.0.0.1:0' } } });

  /** The serial of the certificate the metrics listener presents now. */
  const servedSerial = () =>
    within(
      'a TLS handshake with the metrics listener',
      new Promise<string>((resolve, reject) => {
        const s = tlsConnect(
          {
            host: '127.0.0.1',
            port: bridge.daemon.metricsPort as number,
            servername: 'localhost',
            ca: bridge.pki.ca.certPem,
            cert: bridge.pki.client.certPem,
            key: bridge.pki.client.keyPem,
          },
          () => {
            resolve(s.getPeerCertificate().serialNumber);
            s.destroy();
          },
        );
        s.on('error', reject);
      }),
    );

  it('presents the renewed server certificate after SIGHUP', async () => {
    const before = await servedSerial();
    const renewed = await issueCert({
      type: 'server',
      cn: 'localhost',
      sans: ['localhost', '127.0.0.1'],
      ca: bridge.pki.ca,
    });
    writeFileSync(bridge.pki.serverKeyPath, renewed.keyPem);
    writeFileSync(bridge.pki.serverCertPath, renewed.certPem);
    bridge.daemon.proc.kill('SIGHUP');
    const expected = new X509Certificate(renewed.certPem).serialNumber;
    expect(expected).not.toBe(before);
    await waitFor('the metrics listener to present the renewed certificate', async () => {
      return (await servedSerial()) === expected;
    });
    const res = await scrape(
      bridge.daemon.metricsPort as number,
      bridge.pki.ca.certPem,
      bridge.pki.client,
    );
    expect(res.status).toBe(200);
  });
});

describe('metrics not configured', () => {
  const bridge = useDaemon();

  it('opens no metrics listener', async () => {
    expect(bridge.daemon.metricsPort).toBeUndefined();
    expect(bridge.daemon.output()).not.toMatch(/metrics listening/);
  });
});
