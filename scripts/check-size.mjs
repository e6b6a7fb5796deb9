// `npm run check:size`: no source file over 300 lines. A file that long
// holds more than one concept; split it by concern. Tests (`*.test.ts`), the
// fake agent CLIs under tests/fixtures (each a vendor's protocol in one
// script the tests spawn) and generated code are not counted.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const LIMIT = 300;
const SOURCE = /\.(ts|mts|js|mjs)$/;
const EXEMPT = [/\.test\.ts$/, /^tests\/fixtures\//, /\/gen\//, /\.d\.ts$/];

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' })
  .split('\n')
  // A file deleted in the working tree is still listed until the deletion is staged.
  .filter((f) => SOURCE.test(f) && !EXEMPT.some((re) => re.test(f)) && existsSync(f));
const over = files
  .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
  .filter((f) => f.lines > LIMIT)
  .sort((a, b) => b.lines - a.lines);
for (const { file, lines } of over) console.error(`${file}: ${lines} lines (limit ${LIMIT})`);
if (over.length > 0) {
  console.error(`${over.length} source file(s) over ${LIMIT} lines: split each by concern`);
  process.exit(1);
}
console.log(`✔ ${files.length} source files, none over ${LIMIT} lines`);
