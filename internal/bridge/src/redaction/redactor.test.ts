import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from './redactor.js';

describe('createRedactor', () => {
  const redact = createRedactor([/(api[_-]?key|token|secret|password)\s*[:=]\s*\S+/gi]);

  it('redacts configured patterns', () => {
    expect(redact('using api_key=sk-123456 now')).toBe(`using ${REDACTED} now`);
    expect(redact('PASSWORD: hunter2')).toBe(REDACTED);
  });

  it('redacts bearer tokens, JWTs and private keys built in', () => {
    const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl';
    expect(redact(`got ${jwt}`)).toBe(`got ${REDACTED}`);
    expect(redact('Authorization: Bearer abcdefghijkl')).not.toContain('abcdefghijkl');
    expect(redact('-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----')).toBe(REDACTED);
  });

  it('leaves ordinary text alone', () => {
    expect(redact('hello world')).toBe('hello world');
  });

  it('stays linear on a long line with no match', () => {
    const line = 'a'.repeat(1_000_000);
    expect(redact(line)).toBe(line);
  });
});
