import { describe, expect, it } from 'vitest';
import { PERMISSION_DECISIONS } from '../contract/permission.js';
import { answerPermission, decisionsOffered, offeredOptions } from './permission-answer.js';

const once = { optionId: 'once', kind: 'allow_once' };
const always = { optionId: 'always', kind: 'allow_always' };
const reject = { optionId: 'reject', kind: 'reject_once' };
const rejectAlways = { optionId: 'never', kind: 'reject_always' };

describe('offeredOptions', () => {
  it('keeps the options with an id and a kind', () => {
    expect(offeredOptions([once, { optionId: 'x' }, { kind: 'allow_once' }, 'junk', null])).toEqual(
      [once],
    );
    expect(offeredOptions('garbage')).toEqual([]);
    expect(offeredOptions(undefined)).toEqual([]);
  });
});

describe('decisionsOffered', () => {
  it.each([
    ['allow_once offered: every decision', [once, always, reject], PERMISSION_DECISIONS],
    ['allow_once without reject', [once], PERMISSION_DECISIONS],
    [
      'only allow_always: allow for the session or deny',
      [always, reject],
      ['allow_session', 'deny'],
    ],
    ['no allow option: deny only', [reject, rejectAlways], ['deny']],
    ['nothing offered: deny only', [], ['deny']],
  ])('%s', (_name, offered, expected) => {
    expect(decisionsOffered(offered)).toEqual(expected);
  });
});

describe('answerPermission', () => {
  const selected = (optionId: string) => ({ outcome: 'selected', optionId });
  const cancelled = { outcome: 'cancelled' };
  it.each([
    ['allow_once', [always, once, reject], selected('once')],
    ['allow_once', [always, reject], cancelled],
    // The gate remembers a session grant itself: the agent is granted one use.
    ['allow_session', [always, once, reject], selected('once')],
    ['allow_session', [always, reject], selected('always')],
    ['allow_session', [reject], cancelled],
    ['deny', [once, rejectAlways, reject], selected('reject')],
    ['deny', [once, rejectAlways], selected('never')],
    ['deny', [once, always], cancelled],
  ] as const)('%s with %j → %j', (decision, offered, expected) => {
    expect(answerPermission(decision, offered)).toEqual(expected);
  });
});
