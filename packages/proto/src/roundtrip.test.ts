import { readFileSync } from 'node:fs';
import {
  createFileRegistry,
  type DescEnum,
  type DescField,
  type DescMessage,
  fromBinary,
  ScalarType,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import * as gen from './index.js';
import { descriptorSetPath } from './index.js';

// Builds a value for every field of every bridge.v1 message from the
// descriptor (not from a hand-written list), so a field added to the proto
// is covered without touching this test.

const registry = createFileRegistry(
  fromBinary(FileDescriptorSetSchema, readFileSync(descriptorSetPath)),
);
const file = registry.getFile('bridge/v1/bridge.proto')!;

interface Codec {
  encode(m: unknown): { finish(): Uint8Array };
  decode(b: Uint8Array): unknown;
  fromPartial(o: unknown): unknown;
}

function codec(name: string): Codec {
  const c = (gen as Record<string, unknown>)[name] as Codec | undefined;
  if (!c || typeof c.encode !== 'function') throw new Error(`no generated codec for ${name}`);
  return c;
}

function nonZeroEnum(e: DescEnum): number {
  const v = e.values.find((x) => x.number !== 0);
  if (!v) throw new Error(`enum ${e.typeName} has no non-zero value`);
  return v.number;
}

function scalarValue(t: ScalarType, seed: number): unknown {
  switch (t) {
    case ScalarType.STRING:
      return `s${seed}-é✓`;
    case ScalarType.BOOL:
      return true;
    case ScalarType.BYTES:
      return Buffer.from([1, 2, seed & 0xff]); // the generated code decodes bytes as Buffer
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return 18_446_744_073_709_551_000n + BigInt(seed);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return -9_007_199_254_740_993n - BigInt(seed);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return 4_000_000_000 + seed;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return -2_000_000 - seed;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return 1.5;
  }
}

function messageValue(m: DescMessage, depth: number): unknown {
  switch (m.typeName) {
    case 'google.protobuf.Timestamp':
      return new Date(Date.UTC(2026, 10, 22, 12, 34, 56, 789));
    case 'google.protobuf.Struct':
      return {
        usage: { input_tokens: 12, output_tokens: 34 },
        ok: true,
        tags: ['a', 'b'],
        n: null,
      };
  }
  const out: Record<string, unknown> = {};
  m.fields.forEach((f, i) => {
    out[f.localName] = fieldValue(f, i + 1, depth + 1);
  });
  return out;
}

function fieldValue(f: DescField, seed: number, depth: number): unknown {
  switch (f.fieldKind) {
    case 'scalar':
      return scalarValue(f.scalar, seed);
    case 'enum':
      return nonZeroEnum(f.enum);
    case 'message':
      return messageValue(f.message, depth);
    case 'list':
      if (f.listKind === 'scalar')
        return [scalarValue(f.scalar, seed), scalarValue(f.scalar, seed + 1)];
      if (f.listKind === 'enum') return [nonZeroEnum(f.enum), f.enum.values.at(-1)!.number];
      return [messageValue(f.message, depth), messageValue(f.message, depth)];
    case 'map':
      return { 'key-a': 'value-a', 'key-b': 'value with spaces; and $(symbols)' };
  }
}

describe('every bridge.v1 message round-trips with all fields set', () => {
  it('has a generated codec for every message in the descriptor', () => {
    const missing = file.messages.filter((m) => {
      try {
        codec(m.name);
        return false;
      } catch {
        return true;
      }
    });
    expect(missing.map((m) => m.name)).toEqual([]);
    expect(file.messages.length).toBeGreaterThanOrEqual(20);
  });

  for (const m of file.messages) {
    it(m.name, () => {
      const c = codec(m.name);
      const value = c.fromPartial(messageValue(m, 0)) as Record<string, unknown>;
      const bytes = c.encode(value).finish();
      const back = c.decode(bytes) as Record<string, unknown>;
      expect(back).toEqual(value);
      // "All fields set": nothing decoded to its zero value.
      for (const f of m.fields) {
        const v = back[f.localName];
        expect(v, `${m.name}.${f.name}`).not.toBeUndefined();
        expect(v === '' || v === 0 || v === 0n || v === false, `${m.name}.${f.name}`).toBe(false);
        if (Array.isArray(v)) expect(v.length, `${m.name}.${f.name}`).toBeGreaterThan(0);
      }
      // An empty message decodes to the defaults (proto3 zero values).
      expect(c.decode(new Uint8Array())).toEqual(c.fromPartial({}));
    });
  }
});
