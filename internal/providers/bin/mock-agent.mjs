#!/usr/bin/env node
// The built-in mock agent: a real child process that needs no credentials.
// It answers each input line with a few lines that include the input text,
// and exits when its stdin closes or on SIGTERM.
import { createInterface } from 'node:readline';

const out = (line) => process.stdout.write(`${line}\n`);
out(`mock agent ready in ${process.cwd()}`);

let turn = 0;
const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
rl.on('line', (line) => {
  turn += 1;
  const words = line.trim() === '' ? 0 : line.trim().split(/\s+/).length;
  out(`mock[${turn}]: received "${line}"`);
  out(`mock[${turn}]: ${line.length} characters, ${words} words`);
  out(`mock[${turn}]: done`);
});
rl.on('close', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
