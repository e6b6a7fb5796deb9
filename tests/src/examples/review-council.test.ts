import { REPO_ROOT, useDaemon } from '@agent-bridge/harness';
import { SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import { credentialVars, exampleEnv, run } from './run-example.js';

// review-council.mjs as a user runs it inside the workspace (from source, no
// build), against a real daemon and its mock agent.
const bridge = useDaemon();

interface Printed {
  member: string;
  status: string;
  sessionId: string;
  firstSeq: number;
  lastSeq: number;
  summary: string;
}

/** The reports printed under a round's title: a head line per member, then its answer as "| " lines. */
function reportsOf(section: string): Printed[] {
  const out: (Printed & { lines: string[] })[] = [];
  for (const line of section.split('\n')) {
    const head =
      /^ {2}(\S+): (\w+) · \d+\.\ds · session ([0-9a-f-]{36}) · events (\d+)-(\d+)(?: · .*)?$/.exec(
        line,
      );
    if (head) {
      out.push({
        member: head[1]!,
        status: head[2]!,
        sessionId: head[3]!,
        firstSeq: Number(head[4]),
        lastSeq: Number(head[5]),
        summary: '',
        lines: [],
      });
    } else if (line.startsWith('    | ')) out.at(-1)?.lines.push(line.slice(6));
  }
  return out.map(({ lines, ...r }) => ({ ...r, summary: lines.join('\n') }));
}

describe('examples', () => {
  it('review-council.mjs: three mock members answer, read each other and revise; agreement printed', async () => {
    const question = 'Is the config parser safe against hostile input?';
    const res = await run(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', 'examples/review-council.mjs'],
      {
        cwd: REPO_ROOT,
        env: exampleEnv({
          ...credentialVars(bridge.pki, bridge.scratch),
          BRIDGE_REPO: bridge.daemon.repo,
          BRIDGE_TARGET: `localhost:${bridge.daemon.port}`,
          BRIDGE_QUESTION: question,
        }),
        timeoutMs: 45_000,
      },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = res.stdout;
    expect(out).toMatch(/^council: mock#1, mock#2, mock#3 on localhost:\d+$/m);
    const [r1, r2, agreement] = [
      out.slice(out.indexOf('round 1:'), out.indexOf('round 2:')),
      out.slice(out.indexOf('round 2:'), out.indexOf('agreement across')),
      out.slice(out.indexOf('agreement across')),
    ];
    const first = reportsOf(r1);
    const second = reportsOf(r2);
    const members = ['mock#1', 'mock#2', 'mock#3'];
    for (const round of [first, second]) {
      expect(round.map((r) => [r.member, r.status])).toEqual(members.map((m) => [m, 'COMPLETED']));
    }
    // Round one: each member answered the question alone.
    for (const r of first) {
      expect(r.summary).toMatch(
        new RegExp(`^mock\\[1\\]: received "${question.replace(/\?/g, '\\?')}" \\(.*\\)\\. done$`),
      );
    }
    // Round two: each member's prompt (the mock quotes it) had the others' first answers, not its own as theirs.
    for (const r of second) {
      for (const other of first) {
        const shown = `--- ${other.member} answered:\n${other.summary}`;
        if (other.member === r.member) expect(r.summary).not.toContain(shown);
        else expect(r.summary).toContain(shown);
      }
      expect(r.summary).toContain('Revise your answer');
    }
    // Six tasks, six sessions, each stopped by its task.
    const ids = [...first, ...second].map((r) => r.sessionId);
    expect(new Set(ids).size).toBe(6);
    for (const r of [...first, ...second]) {
      const info = await bridge.call((c) => c.getSession, { sessionId: r.sessionId });
      expect([
        SessionStatus.SESSION_STATUS_STOPPING,
        SessionStatus.SESSION_STATUS_STOPPED,
      ]).toContain(info.status);
      expect(Number(info.lastSeq)).toBeGreaterThanOrEqual(r.lastSeq);
    }
    // The agreement: the question's words are in every revised answer.
    expect(agreement).toMatch(
      /^agreement across 3 revised answers:\n {2}sentences in every answer: \d+\n/,
    );
    const words = /^ {2}words every answer uses: (.*)$/m.exec(agreement)?.[1]?.split(', ') ?? [];
    expect(words).toEqual(expect.arrayContaining(['config', 'parser', 'hostile', 'input']));
  }, 60_000);
});
