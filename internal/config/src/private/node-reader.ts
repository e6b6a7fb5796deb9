import { isMap, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import { parseByteSize, parseDuration } from '../duration.js';

/** One problem found in a config file, located by key path and line. */
export interface ConfigProblem {
  path: string;
  line: number | undefined;
  message: string;
}

/** Returns what is wrong with a value, or undefined when it is fine. */
export type Check<T> = (value: T) => string | undefined;

/**
 * Walks a parsed YAML document with typed accessors. Every accessor records a
 * problem (with the key path and line) instead of throwing, so one run reports
 * every mistake in the file.
 */
export class NodeReader {
  readonly problems: ConfigProblem[] = [];

  constructor(
    private readonly root: unknown,
    private readonly lines: LineCounter,
  ) {}

  lineOf(node: unknown): number | undefined {
    const range = (node as Node | undefined)?.range;
    return range ? this.lines.linePos(range[0]).line : undefined;
  }

  /**
   * The line of a key path ("auth.jwt_public_keys[0].issuer"): where its key
   * is written, or where its nearest written ancestor's is, since a missing
   * key is best shown where it belongs.
   */
  lineAt(path: string): number | undefined {
    let node = this.root;
    let at = this.root;
    for (const seg of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
      if (seg.startsWith('[')) {
        const item = isSeq(node) ? node.items[Number(seg.slice(1, -1))] : undefined;
        if (item === undefined || item === null) break;
        node = at = item;
      } else {
        const pair = isMap(node)
          ? node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === seg)
          : undefined;
        if (!pair) break;
        node = pair.value;
        at = pair.key;
      }
    }
    return this.lineOf(at);
  }

  /** Records a problem at `node`, or where `path` leads when the node is absent. */
  fail(path: string, node: unknown, message: string): undefined {
    this.problems.push({ path, line: this.lineOf(node) ?? this.lineAt(path), message });
    return undefined;
  }

  /** Whether `path` already has a problem, so a check across keys can skip a wrong value. */
  hasProblem(path: string): boolean {
    return this.problems.some((p) => p.path === path);
  }

  /** Reads a mapping, rejecting keys not in `known`. Returns key → value node. */
  map(node: unknown, path: string, known: readonly string[]): Map<string, unknown> | undefined {
    return this.entries(node, path, (key) =>
      known.includes(key) ? undefined : `unknown key (known keys: ${known.join(', ')})`,
    );
  }

  /** A mapping with keys chosen by the user (provider ids, env names); `checkKey` vets each. */
  openMap(node: unknown, path: string, checkKey?: Check<string>): Map<string, unknown> | undefined {
    return this.entries(node, path, checkKey ?? (() => undefined));
  }

  private entries(node: unknown, path: string, checkKey: Check<string>) {
    if (node === undefined || node === null) return new Map<string, unknown>();
    if (!isMap(node)) return this.fail(path || '(root)', node, 'must be a mapping');
    const out = new Map<string, unknown>();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      const keyPath = path ? `${path}.${String(key)}` : String(key);
      const problem = typeof key === 'string' ? checkKey(key) : 'keys must be strings';
      if (problem !== undefined) {
        this.fail(keyPath, pair.key, problem);
        continue;
      }
      out.set(key as string, pair.value);
    }
    return out;
  }

  private scalar(node: unknown): unknown {
    return isScalar(node) ? node.value : node;
  }

  /** A string; without a fallback it is required and must not be empty. */
  str(node: unknown, path: string, fallback?: string): string | undefined {
    if (node === undefined || node === null) {
      return fallback ?? this.fail(path, node, 'is required');
    }
    const v = this.scalar(node);
    if (typeof v !== 'string') return this.fail(path, node, `must be a string, got ${describe(v)}`);
    if (v.length === 0 && fallback === undefined) return this.fail(path, node, 'must not be empty');
    return v;
  }

  bool(node: unknown, path: string, fallback: boolean): boolean | undefined {
    if (node === undefined || node === null) return fallback;
    const v = this.scalar(node);
    if (typeof v !== 'boolean')
      return this.fail(path, node, `must be true or false, got ${describe(v)}`);
    return v;
  }

  int(node: unknown, path: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) {
    if (node === undefined || node === null) return fallback;
    const v = this.scalar(node);
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      return this.fail(path, node, `must be an integer, got ${describe(v)}`);
    }
    if (v < min || v > max)
      return this.fail(path, node, `must be between ${min} and ${max}, got ${v}`);
    return v;
  }

  duration(node: unknown, path: string, fallback: string, minMs = 0): number | undefined {
    const v = node === undefined || node === null ? fallback : this.scalar(node);
    if (typeof v !== 'string') {
      return this.fail(
        path,
        node,
        `must be a duration string like "30s" or "10m", got ${describe(v)}`,
      );
    }
    const ms = parseDuration(v);
    if (ms === undefined) {
      return this.fail(
        path,
        node,
        `bad duration "${v}" (use a number with a unit: ms, s, m, h, d)`,
      );
    }
    if (ms < minMs) return this.fail(path, node, `must be at least ${minMs}ms, got "${v}"`);
    return ms;
  }

  byteSize(node: unknown, path: string, fallback: number, min: number): number | undefined {
    if (node === undefined || node === null) return fallback;
    const v = parseByteSize(this.scalar(node));
    if (v === undefined) {
      return this.fail(path, node, 'must be a byte count: an integer or a size like "8MiB"');
    }
    if (v < min) return this.fail(path, node, `must be at least ${min} bytes`);
    return v;
  }

  /** A list of non-empty strings; every problem the checks find in an item is recorded at it. */
  strList(node: unknown, path: string, ...checks: Check<string>[]): string[] | undefined {
    if (node === undefined || node === null) return [];
    if (!isSeq(node)) return this.fail(path, node, 'must be a list of strings');
    const out: string[] = [];
    node.items.forEach((item, i) => {
      const s = this.str(item, `${path}[${i}]`);
      if (s === undefined) return;
      this.check(s, `${path}[${i}]`, item, checks);
      out.push(s);
    });
    return out;
  }

  /** Records every problem the checks find in a value that was read. */
  check<T>(value: T, path: string, node: unknown, checks: readonly Check<T>[]): void {
    for (const check of checks) {
      const problem = check(value);
      if (problem !== undefined) this.fail(path, node, problem);
    }
  }

  seq(node: unknown, path: string): unknown[] | undefined {
    if (node === undefined || node === null) return [];
    if (!isSeq(node)) return this.fail(path, node, 'must be a list');
    return node.items;
  }

  /** One of `allowed`; `expected` phrases the choice in the message ("one of a, b, c"). */
  oneOf<T extends string>(
    node: unknown,
    path: string,
    fallback: T,
    allowed: readonly T[],
    expected = `one of ${allowed.join(', ')}`,
  ) {
    const v = this.str(node, path, fallback);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) {
      return this.fail(path, node, `must be ${expected}, got "${v}"`);
    }
    return v as T;
  }
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v) || isSeq(v)) return 'a list';
  if (isMap(v)) return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}
