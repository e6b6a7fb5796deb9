import { describe, expect, it } from 'vitest';
import { denialMessage, summarizeInput } from './permission.js';

describe('summarizeInput', () => {
  it('names the command, as a string or an argv array', () => {
    expect(summarizeInput({ command: 'touch created.txt', description: 'x' })).toBe(
      'touch created.txt',
    );
    expect(summarizeInput({ command: ['git', 'status', '--short'] })).toBe('git status --short');
    expect(summarizeInput({ cmd: 'ls' })).toBe('ls');
  });

  it('names the path or URL when there is no command', () => {
    expect(summarizeInput({ file_path: '/repo/a.ts', content: 'long text' })).toBe('/repo/a.ts');
    expect(summarizeInput({ url: 'https://example.com/x', prompt: 'read it' })).toBe(
      'https://example.com/x',
    );
    // The command wins over a path; an empty command does not count.
    expect(summarizeInput({ path: '/repo', command: 'ls' })).toBe('ls');
    expect(summarizeInput({ command: '', path: '/repo' })).toBe('/repo');
  });

  it('falls back to the JSON of the input', () => {
    expect(summarizeInput({ a: 1, b: [true] })).toBe('{"a":1,"b":[true]}');
    expect(summarizeInput({ command: ['ls', 1] })).toBe('{"command":["ls",1]}');
    expect(summarizeInput(null)).toBe('null');
    expect(summarizeInput(undefined)).toBe('');
    expect(summarizeInput('plain text')).toBe('plain text');
  });

  it('folds whitespace into single spaces and trims', () => {
    expect(summarizeInput({ command: '  cat <<EOF\n  a\tb\n\nEOF  ' })).toBe('cat <<EOF a b EOF');
  });

  it('cuts a line longer than 200 characters to 199 and an ellipsis', () => {
    expect(summarizeInput({ command: 'x'.repeat(200) })).toBe('x'.repeat(200));
    const cut = summarizeInput({ command: 'y'.repeat(500) });
    expect(cut).toBe(`${'y'.repeat(199)}…`);
    expect(cut).toHaveLength(200);
  });
});

describe('denialMessage', () => {
  it('says who refused, and why when a reason was given', () => {
    expect(denialMessage({ decision: 'deny', decidedBy: 'caller', reason: 'not on main' })).toBe(
      'denied by the bridge client: not on main',
    );
    expect(denialMessage({ decision: 'deny', decidedBy: 'caller', reason: '' })).toBe(
      'denied by the bridge client',
    );
    expect(denialMessage({ decision: 'deny', decidedBy: 'policy', reason: '' })).toBe(
      "denied by the bridge's policy",
    );
    expect(denialMessage({ decision: 'deny', decidedBy: 'timeout', reason: '' })).toBe(
      'denied by the bridge (timeout)',
    );
    expect(denialMessage({ decision: 'deny', decidedBy: 'session_grant', reason: 'x' })).toBe(
      'denied by the bridge (session grant): x',
    );
  });
});
