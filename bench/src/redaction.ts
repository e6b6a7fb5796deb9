import { EventRedactor, SecretRedactor } from '@agent-bridge/bridge';
import { LineSplitter } from '@agent-bridge/providers/host';
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
/** An agent's answer about code, cut in 4-character pieces as models stream: `n` pieces. */
function streamedMessage(n: number): string[] {
  const text =
    'The handler reads the configuration file, checks the api key setting, and returns a token when the cache is warm. ';
  return (text.repeat(Math.ceil((n * 4) / text.length)).match(/.{1,4}/gs) ?? []).slice(0, n);
}

/** Pieces per second through `onPiece`. */
function pieceRate(pieces: readonly string[], onPiece: (piece: string) => void): number {
  const t0 = process.hrtime.bigint();
  for (const p of pieces) onPiece(p);
  return pieces.length / (Number(process.hrtime.bigint() - t0) / 1e9);
}

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
      for (const ev of events.events({
        type: 'STDOUT',
        stream: 'stdout',
        text,
        ...(continued ? { data: { continued: true } } : {}),
      })) {
        sink += ev.text.length;
      }
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

  // A message streamed in model-sized pieces: redacted as a stream (each
  // piece checked against what may still follow), against redacting each
  // piece on its own (less work, and blind to a secret split across pieces).
  const pieces = streamedMessage(n);
  const onTheirOwn = best(5, () => pieceRate(pieces, (p) => (sink += secrets.redact(p).length)));
  const asStream = best(5, () => {
    const events = new EventRedactor(secrets);
    return pieceRate(pieces, (text) => {
      for (const ev of events.events({ type: 'AGENT_MESSAGE_DELTA', stream: 'stdout', text })) {
        sink += ev.text.length;
      }
    });
  });
  rows.push(
    against({
      id: 'B9',
      name: 'streamed message redaction (AGENT_MESSAGE_DELTA, 4-character pieces)',
      value: asStream,
      unit: 'pieces/s',
      better: 'higher',
      ref: {
        name: 'each piece redacted on its own',
        value: onTheirOwn,
        unit: 'pieces/s',
        ceiling: true,
      },
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
