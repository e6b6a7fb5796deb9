import { describe, expect, it } from 'vitest';
import { TlsRefusalError, UnavailableError } from '../errors.js';
import { RefusalGrace } from './refusal-grace.js';

const closed = () => new TlsRefusalError('closed', { reason: 'client_certificate', code: '' });

describe('RefusalGrace', () => {
  it('ends at once on a certain refusal: an alert, or a daemon certificate refused here', () => {
    const grace = new RefusalGrace(60_000);
    const revoked = new TlsRefusalError('alert', {
      reason: 'client_certificate',
      code: 'certificate_revoked',
    });
    expect(grace.endsWith(revoked, 0)).toBe(true);
    expect(
      grace.endsWith(new TlsRefusalError('name', { reason: 'server_name', code: 'X' }), 0),
    ).toBe(true);
  });

  it('gives a connection closed right after the handshake 10 s in a row, or the reconnect budget if shorter', () => {
    const grace = new RefusalGrace(60_000);
    expect(grace.endsWith(closed(), 1000)).toBe(false);
    expect(grace.endsWith(closed(), 10_999)).toBe(false);
    expect(grace.endsWith(closed(), 11_000)).toBe(true);
    expect(new RefusalGrace(3000).endsWith(closed(), 0)).toBe(false);
    const short = new RefusalGrace(3000);
    short.endsWith(closed(), 0);
    expect(short.endsWith(closed(), 3000)).toBe(true);
  });

  it('starts over after another outcome: a network failure, or a connection that worked', () => {
    const grace = new RefusalGrace(60_000);
    grace.endsWith(closed(), 0);
    expect(grace.endsWith(new UnavailableError('UNAVAILABLE', 'reset'), 9000)).toBe(false);
    expect(grace.endsWith(closed(), 10_000)).toBe(false);
    grace.reset();
    expect(grace.endsWith(closed(), 19_000)).toBe(false);
    expect(grace.endsWith(closed(), 29_000)).toBe(true);
  });
});
