import { describe, expect, it } from 'vitest';
import { answerApproval, pickDecision } from './approvals.js';

describe('pickDecision', () => {
  it('allow grants this request only', () => {
    expect(pickDecision('allow', ['accept', 'acceptForSession', 'decline', 'cancel'])).toBe(
      'accept',
    );
    expect(pickDecision('allow', undefined)).toBe('accept');
  });
  it('deny declines when it can, else cancels', () => {
    expect(pickDecision('deny', undefined)).toBe('decline');
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

describe('answerApproval', () => {
  it('answers a file change and records it as a TOOL_CALL', () => {
    const a = answerApproval(
      'item/fileChange/requestApproval',
      { threadId: 't', turnId: 'u', itemId: 'call_1', reason: 'write outside', grantRoot: '/r' },
      'deny',
      undefined,
    );
    expect(a?.result).toEqual({ decision: 'decline' });
    expect(a?.event).toEqual({
      type: 'TOOL_CALL',
      stream: 'system',
      text: 'approval for file change: decline',
      turnId: 'u',
      data: {
        tool_call_id: 'call_1',
        name: 'fileChange',
        input: { grant_root: '/r' },
        approval_request: 'item/fileChange/requestApproval',
        permission: 'deny',
        decision: 'decline',
        reason: 'write outside',
      },
    });
  });

  it('grants exactly the requested permissions for the turn, or nothing', () => {
    const params = {
      turnId: 'u',
      itemId: 'p',
      permissions: { network: { enabled: true }, fileSystem: null },
    };
    expect(
      answerApproval('item/permissions/requestApproval', params, 'allow', undefined)?.result,
    ).toEqual({
      permissions: { network: { enabled: true } },
      scope: 'turn',
    });
    expect(
      answerApproval('item/permissions/requestApproval', params, 'deny', undefined)?.result,
    ).toEqual({
      permissions: {},
      scope: 'turn',
    });
  });

  it('answers a user-input request with no answers, even when permissions allow', () => {
    const a = answerApproval(
      'item/tool/requestUserInput',
      { turnId: 'u', itemId: 'q', questions: [{ id: 'q1' }] },
      'allow',
      undefined,
    );
    expect(a?.result).toEqual({ answers: {} });
    expect(a?.event.data).toMatchObject({
      name: 'requestUserInput',
      permission: 'deny',
      decision: 'no answer',
    });
  });

  it('is undefined for other methods', () => {
    expect(answerApproval('item/tool/call', {}, 'allow', undefined)).toBeUndefined();
  });
});
