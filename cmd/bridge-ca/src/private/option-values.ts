import type { OptionValues } from '@agent-bridge/cli';
import { CliError } from '@agent-bridge/cli';
import { EXIT } from '../exit-codes.js';

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function requiredString(values: OptionValues, name: string): string {
  const value = optionalString(values, name);
  if (value === undefined) throw new CliError(EXIT.usage, `--${name} is required`);
  return value;
}

export function stringList(values: OptionValues, name: string): string[] {
  const value = values[name];
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}

export function flag(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

export function oneOf<T extends string>(
  values: OptionValues,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = optionalString(values, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new CliError(
      EXIT.usage,
      `--${name} must be one of ${allowed.join(', ')}, not "${value}"`,
    );
  }
  return value as T;
}
