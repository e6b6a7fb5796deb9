import { BridgeClient } from '@agent-bridge/bridgeclient';
import { describe, expect, it } from 'vitest';
import { useDaemon } from '../harness/index.js';

const bridge = useDaemon();

describe('smoke', () => {
  it('starts, sends, streams, stops', async () => {
    const client = new BridgeClient({
      target: `127.0.0.1:${bridge.daemon.port}`,
      mtls: {
        ca: bridge.pki.ca.certPem,
        cert: bridge.pki.client.certPem,
        key: bridge.pki.client.keyPem,
        serverName: 'localhost',
      },
      jwt: {
        privateKey: bridge.pki.issuers.control.privatePem,
        issuer: 'control',
        subject: 'sdk-test',
        projectId: 'alpha',
      },
    });
    const h = await client.health();
    expect(h.status).toBe('serving');
    const s = await client.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
    expect(s.status).toBe('RUNNING');
    await client.sendInput(s.sessionId, 'hello');
    const seen: string[] = [];
    const stream = client.events(s.sessionId, { subscriberId: 'cp' });
    for await (const e of stream) {
      seen.push(e.type);
      if (e.type === 'TURN_COMPLETED') await client.stopSession(s.sessionId);
    }
    expect(seen.at(-1)).toBe('SESSION_STOPPED');
    console.log(seen.join(' '));
    client.close();
  });
});
