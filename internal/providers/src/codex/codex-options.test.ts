import { describe, expect, it } from 'vitest';
import { OptionPolicy } from '../option-policy.js';
import { CODEX_OPTIONS, mcpServerArgs, threadStartParams } from './codex-options.js';

describe('codex options', () => {
  const policy = new OptionPolicy('codex', CODEX_OPTIONS, {});

  it('lets clients choose the model, the safe sandboxes and the asking policies', () => {
    expect(
      policy.validate({
        model: 'gpt-5.1-codex',
        sandbox: 'workspace-write',
        approval_policy: 'on-request',
      }),
    ).toBeUndefined();
  });

  it('keeps danger-full-access and never out of clients hands, even through "*"', () => {
    expect(policy.validate({ sandbox: 'danger-full-access' })?.rule).toMatch(
      /not allowed by this daemon's policy/,
    );
    expect(policy.validate({ approval_policy: 'never' })?.rule).toMatch(/not allowed/);
    const star = new OptionPolicy('codex', CODEX_OPTIONS, { allowedOpts: { sandbox: ['*'] } });
    expect(star.validate({ sandbox: 'danger-full-access' })?.rule).toMatch(/not allowed/);
    expect(
      () =>
        new OptionPolicy('codex', CODEX_OPTIONS, { allowedOpts: { approval_policy: ['never'] } }),
    ).toThrow(/dangerous/);
  });

  it('lets the config default choose them', () => {
    const p = new OptionPolicy('codex', CODEX_OPTIONS, {
      defaultOpts: { sandbox: 'danger-full-access', approval_policy: 'never' },
    });
    expect(threadStartParams('/r', p.resolve({}))).toEqual({
      cwd: '/r',
      sandbox: 'danger-full-access',
      approvalPolicy: 'never',
    });
  });

  it('rejects unknown keys and values that are not the syntax', () => {
    expect(policy.validate({ profile: 'x' })).toMatchObject({ key: 'profile', refused: 'key' });
    expect(policy.validate({ sandbox: '--yolo' })?.rule).toMatch(/is not a sandbox mode/);
  });

  it('defaults to read-only and untrusted when nothing is chosen', () => {
    expect(threadStartParams('/r', {})).toEqual({
      cwd: '/r',
      sandbox: 'read-only',
      approvalPolicy: 'untrusted',
    });
  });

  it('gives codex the bridge tool server as one it must wait for, its tools approved', () => {
    const args = mcpServerArgs({
      name: 'bridge',
      command: '/usr/bin/node',
      args: ['/opt/bridge/main.js', 'mcp', '--socket', '/s/tools "x".sock'],
      tools: ['who'],
    });
    const settings = Object.fromEntries(
      args
        .filter((_, i) => i % 2 === 1)
        .map((a) => {
          const at = a.indexOf('=');
          return [a.slice(0, at), JSON.parse(a.slice(at + 1))];
        }),
    );
    expect(args.filter((_, i) => i % 2 === 0).every((a) => a === '-c')).toBe(true);
    expect(settings).toEqual({
      'mcp_servers.bridge.command': '/usr/bin/node',
      'mcp_servers.bridge.args': ['/opt/bridge/main.js', 'mcp', '--socket', '/s/tools "x".sock'],
      'mcp_servers.bridge.required': true,
      'mcp_servers.bridge.startup_timeout_sec': 30,
      'mcp_servers.bridge.default_tools_approval_mode': 'approve',
    });
    expect(mcpServerArgs(undefined)).toEqual([]);
  });
});
