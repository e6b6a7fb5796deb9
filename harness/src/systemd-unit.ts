import { readFileSync } from 'node:fs';

/**
 * The settings of a systemd unit file: `Section.Key` → its values in file
 * order (a key may repeat). Comments, blank lines and line continuations are
 * handled as systemd does for the files we ship; specifiers and quoting are
 * not interpreted.
 */
export function readUnit(path: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  const text = readFileSync(path, 'utf8').replace(/\\\n/g, ' ');
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`${path}: not a setting: ${line}`);
    const key = `${section}.${line.slice(0, eq).trim()}`;
    settings.set(key, [...(settings.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return settings;
}

/** The one value of `key`; throws when it is absent or set more than once. */
export function unitValue(unit: Map<string, string[]>, key: string): string {
  const values = unit.get(key) ?? [];
  if (values.length !== 1) throw new Error(`${key}: expected one value, found ${values.length}`);
  return values[0]!;
}
