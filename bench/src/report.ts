import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@agent-bridge/harness';
import type { Machine } from './machine.js';
import { beatsCeiling, type Row, targetMet } from './row.js';

const show = (v: number, unit: string) =>
  `${Math.abs(v) < 100 && !Number.isInteger(v) ? v.toFixed(2) : Math.round(v).toLocaleString('en-US')} ${unit}`;

function line(r: Row): string {
  const name = `${r.id ? `${r.id} ` : ''}${r.name}`;
  const cells = [name.padEnd(64), show(r.value, r.unit).padStart(18)];
  if (r.ref) {
    cells.push(`${show(r.ref.value, r.ref.unit).padStart(18)} ${r.ref.name.padEnd(34)}`);
    cells.push(r.ratio === undefined ? '' : `x${r.ratio.toFixed(3)}`.padStart(9));
  } else cells.push(''.padEnd(53), ''.padStart(9));
  const met = targetMet(r);
  if (r.target) {
    const bound = [
      r.target.min === undefined ? '' : `>= ${r.target.min}`,
      r.target.max === undefined ? '' : `<= ${r.target.max}`,
    ].join(' ');
    cells.push(
      `target ${r.target.on === 'ratio' ? 'ratio ' : ''}${bound.trim()} ${met ? 'met' : 'MISSED'}`,
    );
  }
  if (beatsCeiling(r)) cells.push('BEATS ITS CEILING: noise, or a wrong reference');
  if (r.note) cells.push(`(${r.note})`);
  return cells.join('  ').trimEnd();
}

/** Prints the table and writes bench/results/latest.{txt,json}. */
export function report(
  rows: Row[],
  m: Machine,
  run: { quick: boolean; only: string | undefined; startedAt: string },
): void {
  const head = [
    `agent-bridge bench ${run.startedAt}${run.quick ? ' (--quick: small sizes, smoke only)' : ''}${run.only ? ` BENCH_ONLY=${run.only}` : ''}`,
    `machine: ${m.cores} x ${m.cpu}, ${m.ramGiB} GiB RAM, Linux ${m.kernel}; node ${m.node}, @grpc/grpc-js ${m.grpcJs}, jose ${m.jose}`,
    '',
    `${'row'.padEnd(64)}  ${'value'.padStart(18)}  ${'reference'.padStart(18)} ${''.padEnd(34)}  ${'ratio'.padStart(9)}`,
  ];
  const text = `${[...head, ...rows.map(line)].join('\n')}\n`;
  process.stdout.write(text);
  const dir = join(REPO_ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.txt'), text);
  const json = {
    ...run,
    machine: m,
    rows: rows.map((r) => ({ ...r, targetMet: targetMet(r), beatsCeiling: beatsCeiling(r) })),
  };
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);
}
