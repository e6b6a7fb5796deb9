import type { OptionRefusal } from './contract/provider.js';

/** What an adapter accepts for one `agent_opts` key. */
export interface OptionSpec {
  /** Shape every value must have (anchored). Values are argv or protocol fields, never shell text. */
  syntax: RegExp;
  /** Human description of the syntax, for error messages. */
  describe: string;
  /** The closed set of values the CLI knows, when there is one. */
  values?: readonly string[];
  /** Values only the daemon's config may choose (bypassing permissions or the sandbox). */
  dangerous?: readonly string[];
  /** Allowed to clients when the config has no `allowed_opts`: "*" or a list. */
  defaultAllowed: '*' | readonly string[];
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/**
 * The allowlist for a provider's `agent_opts`: which keys a client may set
 * and which values, narrowed by config. Dangerous values can be a config
 * default but never a client's choice. Built once at start-up; a config that
 * names an unknown key or an impossible value fails there, not per request.
 */
export class OptionPolicy {
  private readonly allowed: Map<string, '*' | Set<string>>;
  readonly defaults: Readonly<Record<string, string>>;

  constructor(
    private readonly providerId: string,
    private readonly specs: OptionSpecs,
    config: {
      allowedOpts?: Record<string, string[]> | undefined;
      defaultOpts?: Record<string, string>;
    },
  ) {
    const at = `providers.${providerId}`;
    this.allowed = new Map();
    if (config.allowedOpts === undefined) {
      for (const [k, spec] of Object.entries(specs)) {
        this.allowed.set(k, spec.defaultAllowed === '*' ? '*' : new Set(spec.defaultAllowed));
      }
    } else {
      for (const [k, values] of Object.entries(config.allowedOpts)) {
        const spec = this.spec(k, `${at}.allowed_opts`);
        if (values.includes('*')) {
          if (spec.values) {
            const safe = spec.values.filter((v) => !spec.dangerous?.includes(v));
            this.allowed.set(k, new Set(safe));
          } else this.allowed.set(k, '*');
          continue;
        }
        for (const v of values) {
          this.checkValue(spec, k, v, `${at}.allowed_opts.${k}`);
          if (spec.dangerous?.includes(v)) {
            throw new Error(
              `${at}.allowed_opts.${k}: "${v}" is dangerous and cannot be left to clients; set it in default_opts instead`,
            );
          }
        }
        this.allowed.set(k, new Set(values));
      }
    }
    const defaults: Record<string, string> = {};
    for (const [k, v] of Object.entries(config.defaultOpts ?? {})) {
      this.checkValue(this.spec(k, `${at}.default_opts`), k, v, `${at}.default_opts.${k}`);
      defaults[k] = v;
    }
    this.defaults = defaults;
  }

  /**
   * Why a client may not set `options`; undefined when all are allowed. The
   * refusal names the key and the rule but never quotes the client's text.
   */
  validate(options: Readonly<Record<string, string>>): OptionRefusal | undefined {
    for (const [key, v] of Object.entries(options)) {
      const allowed = this.allowed.get(key);
      if (!allowed) {
        const keys = [...this.allowed.keys()];
        return {
          key,
          refused: 'key',
          malformed: false,
          rule: `is not accepted by provider "${this.providerId}" (accepted: ${keys.length ? keys.join(', ') : 'none'})`,
        };
      }
      const spec = this.specs[key] as OptionSpec;
      if (!spec.syntax.test(v))
        return { key, refused: 'value', malformed: true, rule: `is not ${spec.describe}` };
      if (spec.dangerous?.includes(v) || (allowed !== '*' && !allowed.has(v))) {
        const list = allowed === '*' ? 'any' : [...allowed].join(', ');
        return {
          key,
          refused: 'value',
          malformed: false,
          rule: `is not allowed by this daemon's policy (allowed: ${list})`,
        };
      }
    }
    return undefined;
  }

  /** The options a session runs with: config defaults overlaid by the (validated) client options. */
  resolve(options: Readonly<Record<string, string>>): Record<string, string> {
    return { ...this.defaults, ...options };
  }

  private spec(key: string, at: string): OptionSpec {
    const spec = this.specs[key];
    if (!spec) {
      const known = Object.keys(this.specs);
      throw new Error(
        `${at}: unknown option "${key}" (this adapter knows: ${known.length ? known.join(', ') : 'none'})`,
      );
    }
    return spec;
  }

  private checkValue(spec: OptionSpec, key: string, v: string, at: string): void {
    if (!spec.syntax.test(v)) throw new Error(`${at}: "${v}" is not ${spec.describe}`);
    if (spec.values && !spec.values.includes(v)) {
      throw new Error(`${at}: "${v}" is not a value of ${key} (${spec.values.join(', ')})`);
    }
  }
}

/** Model names as the CLIs take them: "claude-sonnet-4-5", "gpt-5.1-codex", "anthropic/claude-x". */
export const MODEL_OPTION: OptionSpec = {
  syntax: /^[A-Za-z0-9][A-Za-z0-9._:/@[\]-]{0,127}$/,
  describe: 'a model name (letters, digits, ".", "_", ":", "/", "@", "-", "[", "]")',
  defaultAllowed: '*',
};
