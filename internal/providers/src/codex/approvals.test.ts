import { describe, expect, it } from 'vitest';
import { PERMISSION_DECISIONS } from '../contract/permission.js';
import { answerUserInput, approvalRequest, pickDecision } from './approvals.js';

describe('pickDecision', () => {
  it('any allow grants this request only', () => {
    const all = ['accept', 'acceptForSession', 'decline', 'cancel'];
    expect(pickDecision('allow_once', all)).toBe('accept');
    expect(pickDecision('allow_session', all)).toBe('accept');
    expect(pickDecision('allow_once', undefined)).toBe('accept');
  });
  it('deny declines when it can, else cancels', () => {
    expect(pickDecision('deny', undefined)).toBe('decline');
    expect(pickDecision('deny', [])).toBe('decline');
    expect(pickDecision('deny', ['accept', 'decline', 'cancel'])).toBe('decline');
    // The captured 0.169 command request offers no "decline".
    expect(
      pickDecision('deny', [
        'accept',
        { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['touch', 'x'] } },
        'cancel',
      ]),
    ).toBe('cancel');
  });
});

describe('approvalRequest', () => {
  const FILE_CHANGE = 'item/fileChange/requestApproval';
  const COMMAND = 'item/commandExecution/requestApproval';
  const PERMISSIONS = 'item/permissions/requestApproval';

  it('asks about a file change and words the decision for codex', () => {
    const a = approvalRequest(
      FILE_CHANGE,
      { threadId: 't', turnId: 'u', itemId: 'call_1', reason: 'write outside', grantRoot: '/r' },
      'turn-1',
    );
    expect(a?.ask).toEqual({
      tool: 'fileChange',
      summary: 'write under /r',
      input: { grant_root: '/r' },
      options: PERMISSION_DECISIONS,
      toolCallId: 'call_1',
      turnId: 'u',
      details: { approval_request: FILE_CHANGE, agent_reason: 'write outside' },
    });
    expect(a?.result('allow_once')).toEqual({ decision: 'accept' });
    expect(a?.result('allow_session')).toEqual({ decision: 'accept' });
    expect(a?.result('deny')).toEqual({ decision: 'decline' });
  });

  it('takes the current turn when codex names none, and says nothing of a missing reason', () => {
    const a = approvalRequest(FILE_CHANGE, { itemId: 'c' }, 'turn-1');
    expect(a?.ask).toMatchObject({
      summary: 'apply a file change',
      input: { grant_root: null },
      turnId: 'turn-1',
      details: { approval_request: FILE_CHANGE },
    });
    expect(a?.ask.details).not.toHaveProperty('agent_reason');
    expect(approvalRequest(FILE_CHANGE, {}, undefined)?.ask).not.toHaveProperty('turnId');
  });

  it('asks about a command with its command line, offering what codex offers', () => {
    const params = {
      turnId: 'u',
      itemId: 'call_5',
      command: "/bin/bash -lc 'touch x'",
      cwd: '/repo',
      availableDecisions: ['accept', 'cancel'],
    };
    const a = approvalRequest(COMMAND, params, undefined);
    expect(a?.ask).toMatchObject({
      tool: 'commandExecution',
      summary: "/bin/bash -lc 'touch x'",
      input: { command: "/bin/bash -lc 'touch x'", cwd: '/repo' },
      options: PERMISSION_DECISIONS,
    });
    // No "decline" among codex's choices: a denial cancels.
    expect(a?.result('deny')).toEqual({ decision: 'cancel' });
    expect(a?.result('allow_session')).toEqual({ decision: 'accept' });
    // No "accept" among them: deny is the only choice.
    const denyOnly = approvalRequest(
      COMMAND,
      { ...params, availableDecisions: ['decline', 'cancel'] },
      undefined,
    );
    expect(denyOnly?.ask.options).toEqual(['deny']);
    expect(denyOnly?.result('deny')).toEqual({ decision: 'decline' });
  });

  it('grants exactly the requested permissions for the turn, or nothing', () => {
    const params = {
      turnId: 'u',
      itemId: 'p',
      permissions: { network: { enabled: true }, fileSystem: null },
    };
    const a = approvalRequest(PERMISSIONS, params, undefined);
    expect(a?.ask).toMatchObject({
      tool: 'permissions',
      summary: '{"network":{"enabled":true},"fileSystem":null}',
      input: { permissions: params.permissions },
      options: PERMISSION_DECISIONS,
    });
    const granted = { permissions: { network: { enabled: true } }, scope: 'turn' };
    expect(a?.result('allow_once')).toEqual(granted);
    expect(a?.result('allow_session')).toEqual(granted);
    expect(a?.result('deny')).toEqual({ permissions: {}, scope: 'turn' });
  });

  it('is undefined for user input and other methods', () => {
    expect(approvalRequest('item/tool/requestUserInput', {}, undefined)).toBeUndefined();
    expect(approvalRequest('item/tool/call', {}, undefined)).toBeUndefined();
  });
});

describe('answerUserInput', () => {
  it('answers with no answers and records it as a TOOL_CALL', () => {
    const a = answerUserInput(
      'item/tool/requestUserInput',
      { turnId: 'u', itemId: 'q', questions: [{ id: 'q1' }] },
      undefined,
    );
    expect(a?.result).toEqual({ answers: {} });
    expect(a?.event).toMatchObject({ type: 'TOOL_CALL', turnId: 'u' });
    expect(a?.event.data).toEqual({
      tool_call_id: 'q',
      name: 'requestUserInput',
      input: { questions: [{ id: 'q1' }] },
      approval_request: 'item/tool/requestUserInput',
      decision: 'no answer',
    });
  });

  it('is undefined for other methods', () => {
    expect(answerUserInput('item/fileChange/requestApproval', {}, undefined)).toBeUndefined();
  });
});
