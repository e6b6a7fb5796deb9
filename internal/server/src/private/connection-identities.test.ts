import { EventEmitter } from 'node:events';
import type { TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { ConnectionIdentities } from './connection-identities.js';

/** A socket as far as the registry looks at it: its peer, its certificate, its close event. */
function socket(address: string, port: number, cn: string): TLSSocket & EventEmitter {
  const s = new EventEmitter() as TLSSocket & EventEmitter;
  Object.assign(s, {
    remoteAddress: address,
    remotePort: port,
    getPeerCertificate: () => ({
      raw: Buffer.from(cn),
      subject: { CN: cn },
      subjectaltname: '',
      serialNumber: '01',
    }),
  });
  return s;
}

describe('ConnectionIdentities', () => {
  it('answers for a live connection by its peer, as grpc-js names it, until it closes', () => {
    const ids = new ConnectionIdentities();
    const a = socket('127.0.0.1', 5000, 'alpha');
    ids.add(a);
    expect(ids.get('127.0.0.1:5000')?.identities).toEqual(['alpha']);
    expect(ids.get('127.0.0.1:5000')?.audit.peer).toBe('127.0.0.1:5000');
    expect(ids.get('127.0.0.1:5001')).toBeUndefined();
    a.emit('close');
    expect(ids.get('127.0.0.1:5000')).toBeUndefined();
  });

  it('answers nothing while two live connections share a peer, then for the one left', () => {
    const ids = new ConnectionIdentities();
    const first = socket('::1', 6000, 'first');
    const second = socket('::1', 6000, 'second');
    ids.add(first);
    ids.add(second);
    expect(ids.get('::1:6000')).toBeUndefined();
    first.emit('close');
    expect(ids.get('::1:6000')?.identities).toEqual(['second']);
    second.emit('close');
    expect(ids.get('::1:6000')).toBeUndefined();
  });
});
