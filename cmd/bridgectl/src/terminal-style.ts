/** ANSI styles, or none: colour only for a terminal and when NO_COLOR is unset. */
export interface Style {
  dim: (s: string) => string;
  bold: (s: string) => string;
  red: (s: string) => string;
  yellow: (s: string) => string;
  cyan: (s: string) => string;
  green: (s: string) => string;
  magenta: (s: string) => string;
}

const ansi = (code: number) => (s: string) => `\x1b[${code}m${s}\x1b[0m`;
export const COLOURS: Style = {
  dim: ansi(2),
  bold: ansi(1),
  red: ansi(31),
  yellow: ansi(33),
  cyan: ansi(36),
  green: ansi(32),
  magenta: ansi(35),
};
export const PLAIN: Style = {
  dim: (s) => s,
  bold: (s) => s,
  red: (s) => s,
  yellow: (s) => s,
  cyan: (s) => s,
  green: (s) => s,
  magenta: (s) => s,
};

/** Whether to colour: a terminal, and NO_COLOR unset or empty (no-color.org). */
export const useColour = (isTty: boolean, env: Record<string, string | undefined>): boolean =>
  isTty && !env.NO_COLOR;

/** The longest a compacted value gets on its line. */
const MAX_INLINE = 160;

/** One line of at most MAX_INLINE characters, saying how much was left out. */
export function compact(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  const lines = text.split('\n');
  let line = (lines[0] ?? '').trim();
  if (line.length > MAX_INLINE) line = `${line.slice(0, MAX_INLINE - 1)}…`;
  return lines.length > 1 ? `${line} (+${lines.length - 1} lines)` : line;
}
