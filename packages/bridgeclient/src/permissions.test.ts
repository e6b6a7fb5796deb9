import { PermissionDecision } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import { awaitsAnswer, permissionRequest, permissionResolution } from './permissions.js';
import { decisionToWire } from './private/convert.js';
import type { SessionEvent } from './types.js';

const event = (type: SessionEvent['type'], data: Record<string, unknown>): SessionEvent => ({
  seq: 7,
  timestamp: new Date(0),
  sessionId: 's-1',
  projectId: 'p',
  provider: 'claude',
  type,
  stream: 'system',
  text: '',
  done: false,
  error: '',
  turnId: 'turn-2',
  data,
});

describe('permission events, typed', () => {
  it('reads a waiting request, with its deadline and default', () => {
    const r = permissionRequest(
      event('PERMISSION_REQUESTED', {
        request_id: 'perm-3',
        tool: 'Bash',
        summary: 'ls -la',
        input: { command: 'ls -la' },
        options: ['allow_once', 'allow_session', 'deny'],
        tool_call_id: 'toolu_1',
        mode: 'ask',
        expires_at: '2026-01-01T00:05:00.000Z',
        default: 'deny',
      }),
    );
    expect(r).toEqual({
      sessionId: 's-1',
      seq: 7,
      requestId: 'perm-3',
      tool: 'Bash',
      summary: 'ls -la',
      input: { command: 'ls -la' },
      options: ['allow_once', 'allow_session', 'deny'],
      toolCallId: 'toolu_1',
      turnId: 'turn-2',
      mode: 'ask',
      expiresAt: new Date('2026-01-01T00:05:00.000Z'),
      fallback: 'deny',
    });
    expect(r && awaitsAnswer(r)).toBe(true);
  });

  it('a request decided by policy does not await an answer; unknown options are dropped', () => {
    const r = permissionRequest(
      event('PERMISSION_REQUESTED', {
        request_id: 'perm-1',
        mode: 'deny',
        options: ['deny', 'maybe', 3],
      }),
    );
    expect(r).toMatchObject({
      mode: 'deny',
      options: ['deny'],
      expiresAt: undefined,
      fallback: undefined,
    });
    expect(r && awaitsAnswer(r)).toBe(false);
  });

  it('reads a resolution with the caller who decided, and nothing from other events', () => {
    expect(
      permissionResolution(
        event('PERMISSION_RESOLVED', {
          request_id: 'perm-3',
          tool: 'Bash',
          decision: 'allow_session',
          decided_by: 'caller',
          reason: 'trusted',
          caller: { subject: 'alice', issuer: 'cp', certificate: 'cp-alpha' },
        }),
      ),
    ).toEqual({
      sessionId: 's-1',
      seq: 7,
      requestId: 'perm-3',
      tool: 'Bash',
      decision: 'allow_session',
      decidedBy: 'caller',
      reason: 'trusted',
      caller: { subject: 'alice', issuer: 'cp', certificate: 'cp-alpha' },
    });
    expect(permissionResolution(event('PERMISSION_REQUESTED', {}))).toBeUndefined();
    expect(permissionRequest(event('TOOL_CALL', {}))).toBeUndefined();
  });

  it('puts decisions on the wire and refuses anything else before sending', () => {
    expect(decisionToWire('allow_once')).toBe(PermissionDecision.PERMISSION_DECISION_ALLOW_ONCE);
    expect(decisionToWire('allow_session')).toBe(
      PermissionDecision.PERMISSION_DECISION_ALLOW_SESSION,
    );
    expect(decisionToWire('deny')).toBe(PermissionDecision.PERMISSION_DECISION_DENY);
    for (const bad of ['allow', 'toString', '']) {
      expect(() => decisionToWire(bad as 'deny')).toThrow(
        `decision must be "allow_once", "allow_session" or "deny", got ${JSON.stringify(bad)}`,
      );
    }
  });
});
