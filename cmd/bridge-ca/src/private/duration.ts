import { CliError } from '@agent-bridge/cli';
import { EXIT } from '../exit-codes.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "5m", "12h", "30d" → milliseconds. */
export function parseDuration(text: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)([smhd])$/.exec(text.trim());
  const unit = match?.[2] ? UNIT_MS[match[2]] : undefined;
  if (!match || unit === undefined || Number(match[1]) <= 0) {
    throw new CliError(
      EXIT.usage,
      `${option}: "${text}" is not a duration like 90s, 5m, 12h or 30d`,
    );
  }
  return Number(match[1]) * unit;
}

export function parseDays(text: string, option: string): number {
  const days = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(days > 0)) {
    throw new CliError(EXIT.usage, `${option}: "${text}" is not a positive number of days`);
  }
  return days;
}

/** The --days option, or the default when absent. */
export function daysOption(value: string | undefined, fallback: number): number {
  return value === undefined ? fallback : parseDays(value, '--days');
}
