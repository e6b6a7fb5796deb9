import { isAbsolute, resolve } from 'node:path';
import type { Check, NodeReader } from './node-reader.js';

/** What every reader needs: where problems go, and what relative paths are relative to. */
interface ReadContext {
  readonly r: NodeReader;
  readonly baseDir: string;
}

/**
 * Reads the value node at `path` (undefined when the key is absent). Problems
 * are recorded, never thrown, so one run reports them all; the value returned
 * after a problem is a placeholder, since the whole config is then rejected.
 */
export type Reader<T> = (ctx: ReadContext, node: unknown, path: string) => T;

/**
 * A section of the file, one row per field: the YAML key that fills it and
 * the reader that gives its type, bounds and default. Typed against the
 * config interface, so every field has exactly one row, and the section's
 * known keys are the rows' keys: a key is accepted exactly when something
 * reads it.
 */
export type Table<T> = { readonly [K in keyof T]-?: readonly [key: string, read: Reader<T[K]>] };

const absent = (node: unknown) => node === undefined || node === null;

export function section<T>(table: Table<T>): Reader<T> {
  const rows = Object.entries(table) as [string, readonly [string, Reader<unknown>]][];
  const known = rows.map(([, [key]]) => key);
  return (ctx, node, path) => {
    const values = ctx.r.map(node, path, known) ?? new Map<string, unknown>();
    return Object.fromEntries(
      rows.map(([field, [key, read]]) => [
        field,
        read(ctx, values.get(key), path ? `${path}.${key}` : key),
      ]),
    ) as T;
  };
}

/** A key that must be written even though all its contents have defaults. */
export function required<T>(read: Reader<T>, message: string): Reader<T> {
  return (ctx, node, path) => {
    if (node === undefined) ctx.r.fail(path, node, message);
    return read(ctx, node, path);
  };
}

/** Absent stays undefined, so whoever uses the value can tell "not set" from any value. */
export function optional<T>(read: Reader<T>): Reader<T | undefined> {
  return (ctx, node, path) => (absent(node) ? undefined : read(ctx, node, path));
}

/** A string; without a fallback it is required and must not be empty. */
export function text(fallback?: string, ...checks: Check<string>[]): Reader<string> {
  return ({ r }, node, path) => {
    const v = r.str(node, path, fallback);
    if (v !== undefined) r.check(v, path, node, checks);
    return v ?? '';
  };
}

/** A required path, resolved against the config file's directory. */
export function file(): Reader<string> {
  return (ctx, node, path) => resolveIn(ctx, text()(ctx, node, path));
}

/** An optional path ("" when absent), resolved against the config file's directory. */
export function optionalFile(): Reader<string> {
  return (ctx, node, path) => resolveIn(ctx, text('')(ctx, node, path));
}

export function files(): Reader<string[]> {
  return (ctx, node, path) => strings()(ctx, node, path).map((f) => resolveIn(ctx, f));
}

function resolveIn(ctx: ReadContext, p: string): string {
  return p === '' || isAbsolute(p) ? p : resolve(ctx.baseDir, p);
}

export function strings(...checks: Check<string>[]): Reader<string[]> {
  return ({ r }, node, path) => r.strList(node, path, ...checks) ?? [];
}

export function bool(fallback: boolean): Reader<boolean> {
  return ({ r }, node, path) => r.bool(node, path, fallback) ?? fallback;
}

export function int(fallback: number, min: number, max?: number): Reader<number> {
  return ({ r }, node, path) => r.int(node, path, fallback, min, max) ?? fallback;
}

/** Milliseconds; the fallback is written as in the file ("30s") so it reads like the docs. */
export function duration(fallback: string, minMs = 0): Reader<number> {
  return ({ r }, node, path) => r.duration(node, path, fallback, minMs) ?? 0;
}

export function byteSize(fallback: number, min: number): Reader<number> {
  return ({ r }, node, path) => r.byteSize(node, path, fallback, min) ?? fallback;
}

export function oneOf<T extends string>(
  fallback: T,
  allowed: readonly T[],
  expected?: string,
): Reader<T> {
  return ({ r }, node, path) => r.oneOf(node, path, fallback, allowed, expected) ?? fallback;
}

/** A mapping whose keys the user chooses (provider ids, variable names). */
export function openMap<T>(read: Reader<T>, checkKey?: Check<string>): Reader<Record<string, T>> {
  return (ctx, node, path) =>
    Object.fromEntries(
      [...(ctx.r.openMap(node, path, checkKey) ?? [])].map(([k, v]) => [
        k,
        read(ctx, v, `${path}.${k}`),
      ]),
    );
}

/** A list of records, each a section; `atLeastOne` also rejects an empty or missing list. */
export function records<T>(table: Table<T>, opts: { atLeastOne?: boolean } = {}): Reader<T[]> {
  const item = section(table);
  const keys = Object.values<readonly [string, unknown]>(table).map(([key]) => key);
  return (ctx, node, path) => {
    const items = ctx.r.seq(node, path) ?? [];
    if (opts.atLeastOne && items.length === 0) {
      ctx.r.fail(path, node, `needs at least one {${keys.join(', ')}}`);
    }
    return items.map((n, i) => item(ctx, n, `${path}[${i}]`));
  };
}

/** A check that `compile` accepts a regular expression, quoting the engine's reason when not. */
export function compiles(compile: (pattern: string) => unknown): Check<string> {
  return (pattern) => {
    try {
      compile(pattern);
      return undefined;
    } catch (err) {
      return `invalid regular expression: ${(err as Error).message}`;
    }
  };
}
