import { invalid } from '../errors.js';

/** The type of one tool argument. */
type ArgType = 'string' | 'integer' | 'boolean' | 'string[]' | 'integer[]' | 'string-map';

interface ArgSpec {
  type: ArgType;
  description: string;
  required?: boolean;
  /** The values a string may take. */
  enum?: readonly string[];
}

export type ArgSpecs = Readonly<Record<string, ArgSpec>>;

/** The JSON Schema of a tool's arguments, as MCP lists it. */
export function jsonSchemaOf(specs: ArgSpecs): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(specs)) {
    const base =
      s.type === 'string[]'
        ? { type: 'array', items: { type: 'string' } }
        : s.type === 'integer[]'
          ? { type: 'array', items: { type: 'integer', minimum: 0 } }
          : s.type === 'string-map'
            ? { type: 'object', additionalProperties: { type: 'string' } }
            : { type: s.type };
    properties[name] = { ...base, description: s.description, ...(s.enum ? { enum: s.enum } : {}) };
  }
  const required = Object.entries(specs)
    .filter(([, s]) => s.required)
    .map(([n]) => n);
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

const isStringMap = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v).every((x) => typeof x === 'string');

function fits(v: unknown, type: ArgType): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return Number.isSafeInteger(v) && (v as number) >= 0;
    case 'boolean':
      return typeof v === 'boolean';
    case 'string[]':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'integer[]':
      return Array.isArray(v) && v.every((x) => Number.isSafeInteger(x) && x >= 0);
    case 'string-map':
      return isStringMap(v);
  }
}

/**
 * `args` checked against `specs`: an object with no unknown key, every
 * required one present, each of its type (and enum). What an agent sends
 * is never trusted further than this.
 */
export function checkArgs(tool: string, specs: ArgSpecs, args: unknown): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw invalid(`${tool}: the arguments must be an object`, 'tool_args_invalid');
  }
  const a = args as Record<string, unknown>;
  for (const key of Object.keys(a)) {
    if (!(key in specs)) {
      throw invalid(
        `${tool}: unknown argument ${JSON.stringify(key.slice(0, 64))} (it takes: ${Object.keys(specs).join(', ') || 'none'})`,
        'tool_args_invalid',
      );
    }
  }
  for (const [name, s] of Object.entries(specs)) {
    const v = a[name];
    if (v === undefined || v === null) {
      if (s.required) throw invalid(`${tool}: ${name} is required`, 'tool_args_invalid');
      continue;
    }
    if (!fits(v, s.type) || (s.enum && !s.enum.includes(v as string))) {
      throw invalid(
        `${tool}: ${name} must be ${s.enum ? `one of ${s.enum.join(', ')}` : `a ${s.type}`}`,
        'tool_args_invalid',
      );
    }
  }
  return a;
}
