/**
 * docs/security.md maps every row of the attack and fault catalogue to its
 * defence and its test. This keeps the map honest: every row is in the
 * table, and the test file a row names holds a test whose name starts with
 * that row.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(SRC, '..', '..', 'docs', 'security.md');

const range = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
const ROWS = [
  ...range('J', 14),
  ...range('T', 11),
  ...range('R', 7),
  ...range('D', 6),
  ...range('S', 5),
];

/** The catalogue table: row id → the test file names it cites. */
function catalogueTable(): Map<string, string[]> {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('## Catalogue'));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const id = cells[1];
    if (!id || !/^[JTRDS]\d+$/.test(id)) continue;
    const files = [...(cells[4] ?? '').matchAll(/([\w/-]+\.test\.ts)/g)].map((m) => m[1]!);
    rows.set(id, files);
  }
  return rows;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? testFiles(join(dir, e.name))
      : e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

describe('docs/security.md catalogue', () => {
  const table = catalogueTable();
  const files = testFiles(SRC);

  it('lists every catalogue row exactly once', () => {
    expect([...table.keys()].sort()).toEqual([...ROWS].sort());
  });

  it.each(ROWS)('%s names a test file that holds a test named by the row', (row) => {
    const cited = table.get(row) ?? [];
    expect(cited.length, `${row} cites no test file`).toBeGreaterThan(0);
    for (const name of cited) {
      const matches = files.filter((f) => f.endsWith(`/${name}`));
      expect(matches, `${row}: ${name} is not a test file (or is ambiguous)`).toHaveLength(1);
      const text = readFileSync(matches[0]!, 'utf8');
      // A test title (or a table row of an it.each) that begins with the row
      // id, alone or among others ("R3/R4 …").
      expect(text, `${row}: no test in ${name} is named "${row} …"`).toMatch(
        new RegExp(`['\`"]([JTRDS]\\d+/)*${row}[ :/]`),
      );
    }
  });
});
