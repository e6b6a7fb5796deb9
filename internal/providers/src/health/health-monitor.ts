import { availableParallelism } from 'node:os';
import { scope } from '@agent-bridge/scope';
import type { ProviderStatus } from '../contract/provider.js';
import { untilAborted } from '../process/abortable.js';
import { type BinaryIdentity, binaryIdentity, identityKey } from './binary-identity.js';
import { ProbeSlots } from './probe-slots.js';
import { ProbedFact, type ProbeOutcome } from './probed-fact.js';
import type { AuthProbe } from './provider-health.js';
import {
  coverageWarning,
  describeRange,
  type TestedVersions,
  versionCoverage,
} from './tested-versions.js';
import { retryCap, type VersionAnswer, VersionProbes } from './version-probes.js';

/** What the health monitors of the providers built together share. */
export interface ProbeHost {
  slots: ProbeSlots;
  versions: VersionProbes;
  /** Aborted when the daemon stops: probes are killed, retries dropped. */
  lifetime: AbortSignal;
}

/** What providers built together share for their probes: one slot per core (two at least). */
export function createProbeHost(lifetime: AbortSignal): ProbeHost {
  const slots = new ProbeSlots(Math.max(2, availableParallelism()));
  return { slots, versions: new VersionProbes(slots, lifetime), lifetime };
}

export interface HealthMonitorOptions {
  /** The binary's absolute path; rejects with why it cannot run (not found, not executable). */
  resolve(): Promise<string>;
  /** The environment the probes run with (the sessions' own). */
  env: Record<string, string>;
  /** Whether a failing `--version` makes the provider unavailable (a CLI we drive) or not (any command). */
  versionRequired: boolean;
  /** The version in `--version` output; undefined when it holds none. */
  parseVersion(output: string): string | undefined;
  /** The versions the contract tests cover; a version outside them is a warning, never a refusal. */
  testedVersions?: TestedVersions;
  /** A free (no model call) authentication check; a process it runs must end at `deadline`. */
  probeAuth?(
    binaryPath: string,
    env: Record<string, string>,
    deadline: AbortSignal,
  ): Promise<AuthProbe>;
  /** The budget of one probe run. */
  probeTimeoutMs: number;
  /** How long an auth answer (and a failed `--version`) holds before it is re-checked. */
  healthTtlMs: number;
  host: ProbeHost;
}

/**
 * How long a health read waits for the look at the binary (resolution and
 * stat, a few file-system calls) before it answers with what it knew: a
 * dead mount must not hang Health or StartSession.
 */
const BINARY_CHECK_WAIT_MS = 2000;

type BinaryState =
  | { path: string; identity: BinaryIdentity; at: Date }
  | { error: string; at: Date };

/**
 * One provider's health, never waited for. Each read looks at the binary
 * (cheap: resolution and a stat) and answers with what is known; probes
 * run in the background:
 * - `--version` once per binary identity (shared with every provider of
 *   the same file, see VersionProbes), again only when the file changes;
 * - the auth check every `health_ttl`, stale-while-revalidate.
 * A probe cut short keeps the answer before it (stale) and is retried;
 * only a definite failure makes the provider unavailable: the binary gone
 * or not executable, `--version` exiting non-zero or printing no version.
 */
export class HealthMonitor {
  private binary: BinaryState | undefined;
  private checking: Promise<void> | undefined;
  private version: ProbedFact<VersionAnswer> | undefined;
  private readonly auth: ProbedFact<AuthProbe> | undefined;

  constructor(private readonly opts: HealthMonitorOptions) {
    const { probeAuth } = opts;
    this.auth = probeAuth
      ? new ProbedFact({
          probe: async (deadline): Promise<ProbeOutcome<AuthProbe>> => {
            const b = this.binary;
            if (!b || 'error' in b) return { answered: false, why: 'no binary to ask' };
            return { answered: true, value: await probeAuth(b.path, opts.env, deadline) };
          },
          holdsFor: () => opts.healthTtlMs,
          timeoutMs: opts.probeTimeoutMs,
          maxRetryMs: retryCap(opts.healthTtlMs),
          slots: opts.host.slots,
          lifetime: opts.host.lifetime,
        })
      : undefined;
  }

  /**
   * What is known now, after a bounded look at the binary; starts the
   * probes that are due, without waiting for them.
   */
  async status(): Promise<ProviderStatus> {
    const looked = this.look();
    const waited = scope([], { timeoutMs: BINARY_CHECK_WAIT_MS });
    await untilAborted(looked, waited.signal).catch(() => undefined);
    waited.end();
    return this.snapshot();
  }

  /** Resolves when the probes under way have ended (tests, and a caller that wants answers). */
  async settled(): Promise<void> {
    await this.checking;
    await Promise.all([this.version?.settled(), this.auth?.settled()]);
  }

  private look(): Promise<void> {
    this.checking ??= this.lookAtBinary().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async lookAtBinary(): Promise<void> {
    let path: string;
    let identity: BinaryIdentity;
    try {
      path = await this.opts.resolve();
      identity = await binaryIdentity(path);
    } catch (err) {
      this.binary = { error: (err as Error).message, at: new Date() };
      return;
    }
    const before = this.binary;
    const changed =
      !before || 'error' in before || identityKey(before.identity) !== identityKey(identity);
    this.binary = { path, identity, at: new Date() };
    if (changed || !this.version) {
      this.version = this.opts.host.versions.fact(identity, this.opts.env, {
        timeoutMs: this.opts.probeTimeoutMs,
        recheckFailuresMs: this.opts.healthTtlMs,
      });
    }
    this.version.refresh();
    // A new binary may read its login differently: ask it now.
    this.auth?.refresh(changed && before !== undefined);
  }

  private snapshot(): ProviderStatus {
    const b = this.binary;
    const tested = this.opts.testedVersions;
    const base = {
      binaryPath: '',
      version: '',
      authState: 'unknown' as const,
      authDetail: '',
      checkedAt: b?.at ?? new Date(),
      versionCoverage: 'unknown' as const,
      testedVersions: tested ? describeRange(tested) : '',
      warning: '',
    };
    if (!b) {
      return {
        ...base,
        available: true,
        error: '',
        probeState: 'pending',
        probeDetail: 'the binary is being looked up',
      };
    }
    if ('error' in b) {
      return {
        ...base,
        available: false,
        error: b.error,
        probeState: 'current',
        confirmedAt: b.at,
        probeDetail: '',
      };
    }
    const st: ProviderStatus = {
      ...base,
      binaryPath: b.path,
      available: true,
      error: '',
      probeState: 'current',
      probeDetail: '',
    };
    const confirmed: Date[] = [];
    const notes: string[] = [];
    let pending = false;
    let stale = false;

    const v = this.version?.view() ?? { running: true };
    if (v.answer) {
      // The answer is a fact of the file, which the look just found unchanged.
      confirmed.push(b.at);
      const answer = v.answer.value;
      const parsed = answer.ok ? this.opts.parseVersion(answer.output) : undefined;
      if (parsed !== undefined) {
        st.version = parsed;
        st.versionCoverage = versionCoverage(parsed, tested);
        st.warning = coverageWarning(parsed, st.versionCoverage, tested);
      } else if (this.opts.versionRequired) {
        const why = answer.ok
          ? `printed no version: ${(answer.output.split('\n')[0] ?? '').trim().slice(0, 200) || 'no output'}`
          : answer.why;
        Object.assign(st, { available: false, error: `"${b.path} --version" ${why}` });
      }
      if (v.missed) {
        stale = true;
        notes.push(`the re-check of --version ${v.missed.why} (${v.missed.at.toISOString()})`);
      }
    } else {
      pending = true;
      notes.push(
        v.missed
          ? `--version ${v.missed.why} (${v.missed.at.toISOString()}); retrying`
          : '--version is being probed',
      );
    }

    const a = this.auth?.view();
    if (a?.answer) {
      Object.assign(st, { authState: a.answer.value.state, authDetail: a.answer.value.detail });
      confirmed.push(a.answer.at);
      if (a.missed) {
        stale = true;
        notes.push(
          `the auth re-check ${a.missed.why} (${a.missed.at.toISOString()}): showing the answer of ${a.answer.at.toISOString()}`,
        );
      } else if (b.at.getTime() - a.answer.at.getTime() >= this.opts.healthTtlMs) {
        // Nobody asked for a while: the answer is older than health_ttl and
        // the look just started its re-check.
        stale = true;
        notes.push(`the auth answer of ${a.answer.at.toISOString()} is being re-checked`);
      }
    } else if (a) {
      pending = true;
      st.authDetail = a.missed
        ? `auth check ${a.missed.why} (${a.missed.at.toISOString()}); retrying`
        : 'auth check under way';
      notes.push(st.authDetail);
    }

    st.probeState = pending ? 'pending' : stale ? 'stale' : 'current';
    const oldest = confirmed.sort((x, y) => x.getTime() - y.getTime())[0];
    if (oldest) st.confirmedAt = oldest;
    st.probeDetail = notes.join('; ');
    return st;
  }
}
