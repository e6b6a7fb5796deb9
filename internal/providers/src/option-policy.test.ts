import { describe, expect, it } from 'vitest';
import { MODEL_OPTION, OptionPolicy, type OptionSpecs } from './option-policy.js';

const SPECS: OptionSpecs = {
  model: MODEL_OPTION,
  sandbox: {
    syntax: /^[a-z-]+$/,
    describe: 'a sandbox mode',
    values: ['read-only', 'workspace-write', 'danger-full-access'],
    dangerous: ['danger-full-access'],
    defaultAllowed: ['read-only', 'workspace-write'],
  },
};

describe('OptionPolicy', () => {
  it('uses the adapter defaults when config says nothing', () => {
    const p = new OptionPolicy('codex', SPECS, {});
    expect(p.validate({ model: 'gpt-5.1-codex', sandbox: 'read-only' })).toBeUndefined();
    expect(p.validate({ sandbox: 'danger-full-access' })).toEqual({
      key: 'sandbox',
      refused: 'value',
      malformed: false,
      rule: "is not allowed by this daemon's policy (allowed: read-only, workspace-write)",
    });
  });

  it('refuses unknown keys, naming the accepted ones', () => {
    const p = new OptionPolicy('codex', SPECS, {});
    expect(p.validate({ temperature: '1' })).toEqual({
      key: 'temperature',
      refused: 'key',
      malformed: false,
      rule: 'is not accepted by provider "codex" (accepted: model, sandbox)',
    });
  });

  it('refuses values that could be read as flags or carry shell syntax', () => {
    const p = new OptionPolicy('codex', SPECS, {});
    for (const v of ['--dangerously-bypass', '', 'a b', 'x;rm -rf /', '$(id)', 'm\n']) {
      expect(p.validate({ model: v })).toMatchObject({
        key: 'model',
        refused: 'value',
        malformed: true,
        rule: expect.stringMatching(/^is not a model name/),
      });
    }
  });

  it('narrows to the configured values; "*" never includes dangerous values', () => {
    const narrow = new OptionPolicy('codex', SPECS, { allowedOpts: { sandbox: ['read-only'] } });
    expect(narrow.validate({ sandbox: 'workspace-write' })?.rule).toMatch(/not allowed/);
    // Keys not listed in allowed_opts are not client-settable at all.
    expect(narrow.validate({ model: 'x' })).toMatchObject({ key: 'model', refused: 'key' });
    const star = new OptionPolicy('codex', SPECS, { allowedOpts: { sandbox: ['*'] } });
    expect(star.validate({ sandbox: 'workspace-write' })).toBeUndefined();
    expect(star.validate({ sandbox: 'danger-full-access' })?.rule).toMatch(/not allowed/);
  });

  it('rejects a config that hands a dangerous value to clients, or names an unknown option', () => {
    expect(
      () => new OptionPolicy('codex', SPECS, { allowedOpts: { sandbox: ['danger-full-access'] } }),
    ).toThrow(/providers\.codex\.allowed_opts\.sandbox: "danger-full-access" is dangerous/);
    expect(() => new OptionPolicy('codex', SPECS, { allowedOpts: { nope: ['*'] } })).toThrow(
      /providers\.codex\.allowed_opts: unknown option "nope" \(this adapter knows: model, sandbox\)/,
    );
    expect(() => new OptionPolicy('codex', SPECS, { defaultOpts: { sandbox: 'open' } })).toThrow(
      /providers\.codex\.default_opts\.sandbox: "open" is not a value of sandbox/,
    );
  });

  it('lets config choose a dangerous default, which clients can keep but not set', () => {
    const p = new OptionPolicy('codex', SPECS, { defaultOpts: { sandbox: 'danger-full-access' } });
    expect(p.resolve({})).toEqual({ sandbox: 'danger-full-access' });
    expect(p.resolve({ sandbox: 'read-only' })).toEqual({ sandbox: 'read-only' });
    expect(p.validate({ sandbox: 'danger-full-access' })?.rule).toMatch(/not allowed/);
  });

  it("never quotes the client's key or value in the refusal", () => {
    const p = new OptionPolicy('codex', SPECS, {});
    const secret = `sk-ant-${'Q'.repeat(40)}`;
    const cases: Record<string, string>[] = [
      { [secret]: 'x' },
      { model: `${secret} x` },
      { sandbox: secret },
    ];
    for (const opts of cases) {
      expect(p.validate(opts)?.rule).not.toContain('Q'.repeat(20));
    }
  });
});
