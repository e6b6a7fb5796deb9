import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedactor } from '@agent-bridge/bridge';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { auditLine, createAuditLog, MAX_AUDIT_FIELD } from './audit-log.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const logger = pino({ level: 'silent' });

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

describe('createAuditLog', () => {
  it('writes U+2028 and U+2029 escaped: every record is one line, also for Unicode line splitters', () => {
    const path = join(dir, 'records', 'audit.jsonl');
    const log = createAuditLog({ path, redact, logger });
    const detail = 'one\u2028two\u2029three';
    log.audit({ kind: 'call', outcome: 'deny', reason: 'x', detail });
    log.close();
    const text = readFileSync(path, 'utf8');
    expect(text).not.toMatch(/[\u2028\u2029]/);
    // What splitlines() and friends see: exactly one record.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the line breaks splitlines() knows.
    const records = text.split(/\r\n|[\n\r\u2028\u2029\v\f\x1c-\x1e\x85]/).filter(Boolean);
    expect(records).toHaveLength(1);
    expect(JSON.parse(records[0]!).detail).toBe(detail);
  });

  it('a path whose directory cannot be made fails at once, saying so (no endless retry)', () => {
    expect(() => createAuditLog({ path: '/proc/nope/audit.jsonl', redact, logger })).toThrow(
      'cannot create the directory of /proc/nope/audit.jsonl: cannot create /proc/nope (ENOENT)',
    );
  });
});
