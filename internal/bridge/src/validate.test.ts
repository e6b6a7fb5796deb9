import { describe, expect, it } from 'vitest';
import { REDACTED } from './redaction/redactor.js';
import { preview, refusedOptions } from './validate.js';

const KEY = `sk-ant-api03-${'Wx7'.repeat(30)}`;

describe('preview', () => {
  it('redacts before it cuts, so no prefix of a secret survives the cut', () => {
    const long = `${'p'.repeat(50)}/${KEY}`;
    expect(preview(long)).toBe(JSON.stringify(`${'p'.repeat(50)}/${REDACTED}`));
    expect(preview(`${'q'.repeat(60)} ${KEY}`)).toBe(JSON.stringify(`${'q'.repeat(60)} [RE…`));
    expect(preview(`x${KEY}`)).not.toContain('Wx7Wx7');
  });

  it('quotes control characters visibly', () => {
    expect(preview('a\nb\x1b')).toBe('"a\\nb\\u001b"');
  });
});

describe('refusedOptions', () => {
  it('names the field and the rule, and shows key and value only previewed', () => {
    const refusal = {
      key: 'model',
      refused: 'value',
      malformed: true,
      rule: 'is not a model name',
    } as const;
    expect(refusedOptions(refusal, { model: `m ${KEY}` })).toBe(
      `agent_opts "model": value "m ${REDACTED}" is not a model name`,
    );
    expect(
      refusedOptions(
        { key: `k=${KEY}`, refused: 'key', malformed: false, rule: 'is not accepted' },
        {},
      ),
    ).not.toContain('Wx7Wx7');
  });
});
