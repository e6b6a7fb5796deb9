import { isMap, isScalar, isSeq, type LineCounter, type Node, type YAMLMap } from 'yaml';
import { parseByteSize, parseDuration } from '../duration.js';

/** One problem found in a config file, located by key path and line. */
export interface ConfigProblem {
  path: string;
  line: number | undefined;
  message: string;
}

/**
 * Walks a parsed YAML document with typed accessors. Every accessor records a
 * problem (with the key path and line) instead of throwing, so one run reports
 * every mistake in the file.
 */
export class NodeReader {
  readonly problems: ConfigProblem[] = [];

  constructor(private readonly lines: LineCounter) {}

  lineOf(node: unknown): number | undefined {
    const range = (node as Node | undefined)?.range;
    return range ? this.lines.linePos(range[0]).line : undefined;
  }

  fail(path: string, node: unknown, message: string): undefined {
    this.problems.push({ path, line: this.lineOf(node), message });
    return undefined;
  }

  /** Reads a mapping, rejecting keys not in `known`. Returns key → value node. */
  map(node: unknown, path: string, known: readonly string[]): Map<string, unknown> | undefined {
    if (node === undefined || node === null) return new Map();
    if (!isMap(node)) return this.fail(path || '(root)', node, 'must be a mapping');
    return this.entries(node, path, known);
  }

  /** A mapping with arbitrary keys (provider ids, env names). */
  openMap(node: unknown, path: string): Map<string, unknown> | undefined {
    if (node === undefined || node === null) return new Map();
    if (!isMap(node)) return this.fail(path, node, 'must be a mapping');
    return this.entries(node, path, undefined);
  }

  private entries(node: YAMLMap, path: string, known: readonly string[] | undefined) {
    const out = new Map<string, unknown>();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      const keyPath = path ? `${path}.${String(key)}` : String(key);
      if (typeof key !== 'string') {
        this.fail(keyPath, pair.key, 'keys must be strings');
        continue;
      }
      if (known && !known.includes(key)) {
        this.fail(keyPath, pair.key, `unknown key (known keys: ${known.join(', ')})`);
        continue;
      }
      out.set(key, pair.value);
    }
    return out;
  }

  private scalar(node: unknown): unknown {
    return isScalar(node) ? node.value : node;
  }

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

  strList(node: unknown, path: string): string[] | undefined {
    if (node === undefined || node === null) return [];
    if (!isSeq(node)) return this.fail(path, node, 'must be a list of strings');
    const out: string[] = [];
    node.items.forEach((item, i) => {
      const s = this.str(item, `${path}[${i}]`);
      if (s !== undefined) out.push(s);
    });
    return out;
  }

  seq(node: unknown, path: string): unknown[] | undefined {
    if (node === undefined || node === null) return [];
    if (!isSeq(node)) return this.fail(path, node, 'must be a list');
    return node.items;
  }

  oneOf<T extends string>(node: unknown, path: string, fallback: T, allowed: readonly T[]) {
    const v = this.str(node, path, fallback);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) {
      return this.fail(path, node, `must be one of ${allowed.join(', ')}, got "${v}"`);
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
