import { createRedactor } from '@agent-bridge/bridge';
import { describe, expect, it } from 'vitest';
import { auditLine, MAX_AUDIT_FIELD } from './audit-log.js';

const redact = createRedactor([]);
const at = new Date('2026-01-02T03:04:05.000Z');
const KEY = `sk-ant-api03-${'Q'.repeat(80)}`;

describe('auditLine', () => {
  it('writes the set fields flat and snake_case, and leaves out empty ones', () => {
    const line = auditLine(
      {
        kind: 'call',
        outcome: 'deny',
        reason: 'session_not_found',
        method: 'GetSession',
        sessionId: 'abc',
        projectId: '',
        identity: { certSerial: '0a', iss: 'cp' },
      },
      at,
      redact,
    );
    expect(line).toEqual({
      time: '2026-01-02T03:04:05.000Z',
      kind: 'call',
      outcome: 'deny',
      reason: 'session_not_found',
      method: 'GetSession',
      session_id: 'abc',
      cert_serial: '0a',
      iss: 'cp',
    });
  });

  it('redacts a secret that starts late in a long field before cutting it, so no prefix of it survives', () => {
    // The key begins 200 characters in: a cut at an earlier bound would keep
    // "sk-ant-api03-QQQ…" too short for any rule to recognise.
    const sessionId = `${'x'.repeat(200)} ${KEY} ${'y'.repeat(400)}`;
    const line = auditLine(
      { kind: 'call', outcome: 'deny', reason: 'session_id_invalid', sessionId },
      at,
      redact,
    );
    expect(line.session_id).not.toContain('sk-ant-api03-Q');
    expect(line.session_id).toContain('[REDACTED]');
    expect(line.session_id).toMatch(/…\(\d+ chars\)$/);
    expect(line.session_id!.length).toBeLessThanOrEqual(MAX_AUDIT_FIELD + 20);
  });

  it('keeps a field at the bound whole', () => {
    const detail = 'd'.repeat(MAX_AUDIT_FIELD);
    const line = auditLine({ kind: 'session', outcome: 'ok', reason: 'x', detail }, at, redact);
    expect(line.detail).toBe(detail);
  });
});
