import { call, collect, status, useDaemon } from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import type { ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';

// Secrets are assembled at run time so the repository holds no literal credential.
const chars = (n: number, seed = 'Q7x') => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);
const KEY = `sk-ant-api03-${chars(40)}`;
const BODY = `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ${chars(14, 'Kp')}`;

/** One sample per built-in rule family: the line's secret part and the secret itself. */
const SAMPLES: { hit: string; secret: string }[] = [
  { hit: `AKIA${chars(16, 'Z9')}`, secret: `AKIA${chars(16, 'Z9')}` },
  { hit: `aws_secret_access_key=${chars(40, 'w/J+')}`, secret: chars(40, 'w/J+') },
  { hit: `ghp_${chars(36)}`, secret: `ghp_${chars(36)}` },
  { hit: `github_pat_${chars(22)}_${chars(59, 'Mn')}`, secret: `${chars(22)}_${chars(59, 'Mn')}` },
  { hit: KEY, secret: KEY },
  { hit: `sk-proj-${chars(48, 'Tb')}`, secret: `sk-proj-${chars(48, 'Tb')}` },
  { hit: `AIza${chars(35, 'Gg')}`, secret: `AIza${chars(35, 'Gg')}` },
  { hit: `xoxb-1234567890-${chars(24, 'Sl')}`, secret: `1234567890-${chars(24, 'Sl')}` },
  {
    hit: `https://hooks.slack.com/services/T0/B0/${chars(24, 'Wh')}`,
    secret: `B0/${chars(24, 'Wh')}`,
  },
  {
    hit: `eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ${chars(12, 'Jw')}.${chars(40, 'Sg')}`,
    secret: `eyJzdWIiOiJ${chars(12, 'Jw')}`,
  },
  { hit: `Authorization: Bearer ${chars(32, 'Br')}`, secret: chars(32, 'Br') },
  { hit: `api_key=${chars(24, 'Kv')}`, secret: chars(24, 'Kv') },
  { hit: `password: ${chars(18, 'Pw')}`, secret: chars(18, 'Pw') },
  { hit: `{"client_secret": "${chars(20, 'Cs')}"}`, secret: chars(20, 'Cs') },
  { hit: `postgres://app:${chars(16, 'Up')}@db.internal/x`, secret: chars(16, 'Up') },
  {
    hit: `-----BEGIN RSA PRIVATE KEY-----${BODY}-----END RSA PRIVATE KEY-----`,
    secret: BODY,
  },
];

interface Step {
  fd?: 1 | 2;
  text?: string;
  fill?: [string, number];
  wait?: number;
  exit?: number;
}
const script = (steps: Step[]) => [
  'script',
  Buffer.from(JSON.stringify(steps)).toString('base64url'),
];

const LIMIT = 64 * 1024;
/** Where the line limit cuts the secret: inside "sk-" (the trigger), just after it, deep inside, at its end. */
const CUTS = [1, 2, 3, 9, KEY.length - 1];
/** A line whose secret the 64 KiB line limit cuts `at` characters into it. */
const cutLine = (tag: string, at: number) => ({
  head: `${tag}${'c'.repeat(LIMIT - tag.length - at - 1)} `,
  tail: `${KEY} ${tag}end`,
});
/** The steps writing `cutLine` (argv is too small to carry 64 KiB). */
const cutSteps = (tag: string, at: number): Step[] => [
  { text: tag },
  { fill: ['c', LIMIT - tag.length - at - 1] },
  { text: ` ${KEY} ${tag}end\n` },
];

const JSON_LINE = JSON.stringify({
  level: 'info',
  msg: `config {"token": "${chars(20, 'Tk')}"}`,
  api_key: chars(24, 'Ak'),
  pem: `-----BEGIN PRIVATE KEY-----\n${BODY}\n-----END PRIVATE KEY-----\n`,
});

const ADVERSARIAL = ['eyJ', '-----BEGIN ', '"token": "', 'ghp_', 'https://a:', '\x1b[31m'];

const bridge = useDaemon({
  config: { logging: { level: 'debug' } },
  fakeProviders: {
    s1: script([
      ...SAMPLES.flatMap((s, i): Step[] => [
        { fd: 1, text: `S1-out-${i} left ${s.hit} right\n` },
        { fd: 2, text: `S1-err-${i} left ${s.hit} right\n` },
      ]),
      { exit: 3 },
    ]),
    s2: script([
      { text: `S2-timed left ${KEY.slice(0, 17)}`, wait: 50 },
      { text: `${KEY.slice(17)} right\n` },
      ...CUTS.flatMap((at) => cutSteps(`S2-cut-${at} `, at)),
      { exit: 0 },
    ]),
    s3: script([
      { text: `S3-ansi left \x1b[1;31m${KEY}\x1b[0m right\n` },
      { text: `S3-ansi-split left ${KEY.slice(0, 12)}\x1b[1m${KEY.slice(12)}\x1b[0m right\n` },
      { text: `${JSON_LINE}\n` },
      { text: `${JSON.stringify({ log: JSON_LINE })}\n` },
      { text: 'S3-pem before\n' },
      ...[
        '-----BEGIN OPENSSH PRIVATE KEY-----',
        BODY,
        BODY,
        'AAAA==',
        '-----END OPENSSH PRIVATE KEY-----',
      ].map((line): Step => ({ text: `${line}\n`, wait: 20 })),
      { text: 'S3-pem after\n' },
      { exit: 0 },
    ]),
    s5: script([
      { fill: ['a', 1_000_000] },
      { text: '\n' },
      ...ADVERSARIAL.map(
        (unit): Step => ({ fill: [unit, Math.ceil(200_000 / unit.length)], wait: 0 }),
      ).flatMap((s) => [s, { text: '\n' }]),
      { text: 'S5 end\n' },
      { exit: 0 },
    ]),
    echo: ['echo'],
  },
});

/** Every event of a session that ends by itself, from seq 0. */
async function replay(provider: string): Promise<SessionEvent[]> {
  const { sessionId } = await bridge.sessions().start(provider);
  const { events } = await collect(bridge.stream({ sessionId, afterSeq: 0n }));
  expectContiguous(events);
  return events;
}

const seqs = (events: SessionEvent[]) => events.map((e) => Number(e.seq));

function expectContiguous(events: SessionEvent[]): void {
  expect(events.length).toBeGreaterThan(0);
  expect(events.map((e) => Number(e.seq))).toEqual(events.map((_, i) => i + 1));
}

/** The text of a stream's events, continued pieces joined into their lines. */
function linesOf(events: SessionEvent[], stream: 'stdout' | 'stderr'): string[] {
  const out: string[] = [];
  let open = false;
  for (const e of events.filter((x) => x.stream === stream)) {
    if (open) out[out.length - 1] += e.text;
    else out.push(e.text);
    open = (e.data as { continued?: boolean } | undefined)?.continued === true;
  }
  return out;
}

/** Everything a secret could have reached: events, the daemon's log and the audit file. */
function everywhere(events: SessionEvent[]): string {
  return [
    JSON.stringify(events, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
    bridge.daemon.output(),
    JSON.stringify(bridge.daemon.audit.all()),
  ].join('\n');
}

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e as ServiceError,
  );
  expect(err, 'the call should fail').toBeDefined();
  return err as ServiceError;
}

describe('redaction before the ring, the log and the audit file', () => {
  it('S1 each built-in pattern on stdout and on stderr is redacted in replay, log, audit and the stderr tail', async () => {
    const events = await replay('s1');
    const all = everywhere(events);
    for (const s of SAMPLES) expect(all).not.toContain(s.secret);
    const out = linesOf(events, 'stdout').filter((l) => l.startsWith('S1-'));
    const err = linesOf(events, 'stderr');
    expect(out).toHaveLength(SAMPLES.length);
    expect(err).toHaveLength(SAMPLES.length);
    SAMPLES.forEach((_, i) => {
      for (const [lines, name] of [
        [out, 'out'],
        [err, 'err'],
      ] as const) {
        expect(lines[i]).toMatch(new RegExp(`^S1-${name}-${i} left .*\\[REDACTED\\].* right$`));
      }
    });
    const last = events.at(-1)!;
    expect(last.type).toBe(EventType.EVENT_TYPE_SESSION_FAILED);
    const tail = (last.data as { stderr_tail: string }).stderr_tail;
    expect(tail).toContain(`S1-err-${SAMPLES.length - 1} left`);
    expect(tail).toContain('[REDACTED]');
  });

  it('S2 a secret split across two writes 50 ms apart, and cut by the 64 KiB line limit, is redacted', async () => {
    const events = await replay('s2');
    expect(everywhere(events)).not.toContain(KEY.slice(0, 24));
    const lines = linesOf(events, 'stdout');
    expect(lines).toContain('S2-timed left [REDACTED] right');
    for (const at of CUTS) {
      const { head, tail } = cutLine(`S2-cut-${at} `, at);
      expect(lines).toContain(`${head}${tail.replace(KEY, '[REDACTED]')}`);
    }
    // The long lines really were cut into continued pieces.
    expect(events.filter((e) => (e.data as { continued?: boolean })?.continued).length).toBe(5);
  });

  it('S3 a secret inside ANSI colour codes, in JSON-escaped text and in a PEM key printed line by line is redacted', async () => {
    const events = await replay('s3');
    const all = everywhere(events);
    for (const s of [KEY.slice(13), BODY, chars(20, 'Tk'), chars(24, 'Ak')]) {
      expect(all).not.toContain(s);
    }
    const lines = linesOf(events, 'stdout');
    expect(lines).toContain('S3-ansi left \x1b[1;31m[REDACTED]\x1b[0m right');
    expect(lines).toContain('S3-ansi-split left [REDACTED]\x1b[0m right');
    const json = lines.filter((l) => l.startsWith('{'));
    expect(json).toHaveLength(2);
    const doc = JSON.parse(json[0]!) as Record<string, string>;
    expect(doc).toMatchObject({ level: 'info', api_key: '[REDACTED]', pem: '[REDACTED]\n' });
    expect(doc.msg).toBe('config {"token": "[REDACTED]"}');
    const nested = JSON.parse(JSON.parse(json[1]!).log) as Record<string, string>;
    expect(nested).toMatchObject({ api_key: '[REDACTED]' });
    const pem = lines.slice(lines.indexOf('S3-pem before'), lines.indexOf('S3-pem after') + 1);
    expect(pem).toEqual(['S3-pem before', ...Array(5).fill('[REDACTED]'), 'S3-pem after']);
  });

  it('S4 a secret in SendInput, in request values that errors quote, and in audit fields is redacted', async () => {
    const mark = bridge.daemon.audit.mark();
    const { sessionId, send } = await bridge.sessions().start('echo');
    await send(`please use ${KEY} now`);
    const { events } = await collect(bridge.stream({ sessionId, afterSeq: 0n }), (e) =>
      e.text.startsWith('echo:'),
    );
    expectContiguous(events);
    expect(events.find((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED)?.text).toBe(
      'please use [REDACTED] now',
    );
    expect(events.at(-1)?.text).toBe('echo: please use [REDACTED] now');

    const start = (req: {
      repoPath?: string;
      provider?: string;
      agentOpts?: Record<string, string>;
    }) =>
      failure(
        call(
          bridge.client,
          (c) => c.startSession,
          {
            projectId: bridge.project,
            sessionId: crypto.randomUUID(),
            repoPath: req.repoPath ?? bridge.daemon.repo,
            provider: req.provider ?? 'echo',
            agentOpts: req.agentOpts ?? {},
          },
          bridge.md,
        ),
      );
    const cases: [Promise<ServiceError>, RegExp, status][] = [
      [
        start({ repoPath: `${bridge.daemon.repo}/${KEY}` }),
        /repo_path/,
        status.FAILED_PRECONDITION,
      ],
      [start({ repoPath: `relative/${KEY}` }), /repo_path/, status.INVALID_ARGUMENT],
      [start({ provider: `p-${KEY}` }), /provider/, status.INVALID_ARGUMENT],
      [
        start({ provider: 'mock', agentOpts: { model: `${KEY} x` } }),
        /agent_opts "model": value/,
        status.INVALID_ARGUMENT,
      ],
      [
        start({ provider: 'mock', agentOpts: { [`k ${KEY}`]: 'v' } }),
        /agent_opts key/,
        status.PERMISSION_DENIED,
      ],
      [
        start({ provider: 'echo', agentOpts: { model: KEY } }),
        /agent_opts key "model"/,
        status.PERMISSION_DENIED,
      ],
      [
        failure(call(bridge.client, (c) => c.getSession, { sessionId: KEY }, bridge.md)),
        /session_id/,
        status.INVALID_ARGUMENT,
      ],
    ];
    for (const [p, field, code] of cases) {
      const err = await p;
      expect(err.code).toBe(code);
      expect(err.details).toMatch(field);
      expect(err.details).not.toContain(KEY.slice(13, 30));
    }
    const audit = bridge.daemon.audit.since(mark);
    expect(audit.some((r) => r.method === 'GetSession' && r.session_id === '[REDACTED]')).toBe(
      true,
    );
    expect(JSON.stringify(audit)).not.toContain(KEY.slice(13, 30));
    expect(bridge.daemon.output()).not.toContain(KEY.slice(13, 30));
  });

  it('S6 secrets an agent streams in pieces (AGENT_MESSAGE_DELTA): no piece shows any of them, live or on replay', async () => {
    // The mock streams its reply, which quotes the input, a word at a time:
    // a key with spaces in it, and a value after "api_key= ", come in pieces.
    const value = chars(24, 'Kv');
    const pem = `-----BEGIN PRIVATE KEY----- ${BODY.slice(0, 30)} ${BODY.slice(30)} -----END PRIVATE KEY-----`;
    const input = `keep ${pem} and api_key= ${value} safe`;
    const { sessionId } = await bridge.sessions().start('mock');
    const turnDone = (e: SessionEvent) => e.type === EventType.EVENT_TYPE_TURN_COMPLETED;
    const live = collect(bridge.stream({ sessionId, afterSeq: 0n }), turnDone);
    await bridge.call((c) => c.sendInput, { sessionId, text: input, idempotencyKey: '' });
    const liveEvents = (await live).events;
    const replayed = (await collect(bridge.stream({ sessionId, afterSeq: 0n }), turnDone)).events;
    const windows = (secret: string) =>
      Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6));
    for (const events of [liveEvents, replayed]) {
      const deltas = events.filter((e) => e.type === EventType.EVENT_TYPE_AGENT_MESSAGE_DELTA);
      expect(deltas.length).toBeGreaterThan(5);
      const joined = deltas.map((e) => e.text).join('');
      const all = everywhere(events);
      for (const w of [...windows(BODY), ...windows(value)]) {
        expect(joined).not.toContain(w);
        expect(all).not.toContain(w);
      }
      // The reply is still there around them.
      expect(joined).toMatch(/^mock\[1\]: received "keep .*\[REDACTED\].* safe"/);
    }
    expect(seqs(replayed)).toEqual(seqs(liveEvents));
    await bridge.call((c) => c.stopSession, { sessionId, force: true });
  });

  it('S5 a 1 MB line of "a" and adversarial near-miss lines come through a live session intact', async () => {
    const events = await replay('s5');
    const lines = linesOf(events, 'stdout');
    expect(lines).toContain('a'.repeat(1_000_000));
    for (const unit of ADVERSARIAL) {
      const line = unit.repeat(Math.ceil(200_000 / unit.length));
      expect(lines.includes(line), JSON.stringify(unit)).toBe(true);
    }
    expect(lines.at(-1)).toBe('S5 end');
  });
});
