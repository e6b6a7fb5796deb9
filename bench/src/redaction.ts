import { EventRedactor, SecretRedactor } from '@agent-bridge/bridge';
import { LineSplitter } from '@agent-bridge/providers';
import { against, type Row } from './row.js';

const CHUNK = 64 * 1024;
const MIB = 1024 * 1024;

/**
 * Agent-like output: lines of `width` bytes, one in 50 holding a word that
 * sets off rules without being a secret ("token", "key", "://"), one in 500
 * holding a real-looking secret, so the prefilter, the rules and the
 * replacement all take their usual share.
 */
function agentOutput(n: number, width: number): Buffer {
  const words = ['compiling', 'module', 'test', 'passed', 'src/index.ts', 'ok', 'line'];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    let l = `${i} `;
    if (i % 500 === 7) l += `export API_KEY=${'k9'.repeat(16)} `;
    else if (i % 50 === 3) l += 'max_tokens=4096 see https://example.com/key ';
    while (l.length < width) l += `${words[(i + l.length) % words.length]} `;
    lines.push(l.slice(0, width));
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** Lines per second of pushing `data` through the daemon's line splitter in 64 KiB chunks, with `onLine` per line. */
function splitRate(data: Buffer, onLine: (text: string, continued: boolean) => void): number {
  let lines = 0;
  const splitter = new LineSplitter((text, continued) => {
    lines++;
    onLine(text, continued);
  });
  const t0 = process.hrtime.bigint();
  for (let at = 0; at < data.length; at += CHUNK) splitter.push(data.subarray(at, at + CHUNK));
  splitter.flush();
  return lines / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/** The best of `runs` measurements: the run least disturbed by the machine. */
function best(runs: number, measure: () => number): number {
  let top = 0;
  for (let i = 0; i < runs; i++) top = Math.max(top, measure());
  return top;
}

/** Milliseconds to run `fn` once, the best of `runs`. */
function fastestMs(runs: number, fn: () => void): number {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    min = Math.min(min, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return min;
}

/**
 * B9: the cost of redaction on the output path, in process. Lines of
 * `width` bytes are split with and without redaction; the reference is the
 * regex-free split of the same data in the same run. Then the worst-case
 * 1 MiB lines (all "a", and per-rule near misses), each against splitting
 * the same line.
 */
export function redactionRows(n: number, width: number): Row[] {
  const data = agentOutput(n, width);
  const secrets = new SecretRedactor([/(?:customer-id)\s*[:=]\s*\S+/gi]);
  let sink = 0;
  const rows: Row[] = [];

  const split = best(5, () => splitRate(data, (t) => (sink += t.length)));
  const splitRef = {
    name: `regex-free split, ${width} B lines`,
    value: split,
    unit: 'lines/s',
    ceiling: true,
  };
  const redacted = best(5, () => splitRate(data, (t) => (sink += secrets.redact(t).length)));
  rows.push(
    against({
      id: 'B9',
      name: 'split + redact (rules and configured patterns)',
      value: redacted,
      unit: 'lines/s',
      better: 'higher',
      ref: splitRef,
    }),
  );
  const streamed = best(5, () => {
    const events = new EventRedactor(secrets);
    return splitRate(data, (text, continued) => {
      sink += events.event({
        type: 'STDOUT',
        stream: 'stdout',
        text,
        ...(continued ? { data: { continued: true } } : {}),
      }).text.length;
    });
  });
  rows.push(
    against({
      id: 'B9',
      name: 'split + per-stream redaction (as Session.append)',
      value: streamed,
      unit: 'lines/s',
      better: 'higher',
      ref: splitRef,
    }),
  );

  for (const unit of ['a', 'eyJ', '-----BEGIN ', '"token": "', 'ghp_', 'https://a:', '\x1b[31m']) {
    const line = unit.repeat(Math.ceil(MIB / unit.length)).slice(0, MIB);
    const raw = Buffer.from(`${line}\n`);
    const splitMs = fastestMs(5, () => {
      sink += 1e6 / splitRate(raw, (t) => (sink += t.length));
    });
    const ms = fastestMs(5, () => {
      sink += secrets.redact(line).length;
    });
    rows.push(
      against({
        id: 'B9',
        name: `1 MiB line of ${JSON.stringify(unit)}: redact`,
        value: ms,
        unit: 'ms',
        better: 'lower',
        ref: { name: 'splitting that line', value: splitMs, unit: 'ms', ceiling: false },
      }),
    );
  }
  if (sink < 0) throw new Error('unreachable: keeps the work observable');
  return rows;
}
