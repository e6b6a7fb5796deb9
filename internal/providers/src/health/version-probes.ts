import { type BinaryIdentity, identityKey } from './binary-identity.js';
import { probeOutput } from './binary-probe.js';
import type { ProbeSlots } from './probe-slots.js';
import { ProbedFact, type ProbeOutcome } from './probed-fact.js';

/** What `<binary> --version` answered: its output, or why it is a broken binary. */
export type VersionAnswer = { ok: true; output: string } | { ok: false; why: string };

/** Spawn errors that say the file cannot run; others (EAGAIN, EMFILE, ENOMEM) say the host is short of something. */
const CANNOT_RUN = new Set(['ENOENT', 'EACCES', 'ENOEXEC', 'ENOTDIR', 'ELOOP']);

/** Identities remembered at once: a daemon sees a few binaries, each upgraded now and then. */
const MAX_REMEMBERED = 64;

/**
 * What each binary's `--version` said, keyed by the binary's identity (and
 * the PATH its interpreter is found on): a fact of the file, probed once
 * per identity for every provider built together, and again only when the
 * file changes. A good answer is kept for good; a failure (non-zero exit,
 * a file that cannot run) is looked at again after the asking provider's
 * `health_ttl`, in case what was missing (an interpreter, a library) came.
 */
export class VersionProbes {
  private readonly facts = new Map<string, ProbedFact<VersionAnswer>>();

  constructor(
    private readonly slots: ProbeSlots,
    private readonly lifetime: AbortSignal,
  ) {}

  /** The fact for this identity; the first asker's budget and re-check period apply to it. */
  fact(
    identity: BinaryIdentity,
    env: Record<string, string>,
    opts: { timeoutMs: number; recheckFailuresMs: number },
  ): ProbedFact<VersionAnswer> {
    const key = `${identityKey(identity)}\0${env.PATH ?? ''}`;
    let fact = this.facts.get(key);
    if (fact) {
      // Most recently used last, so the oldest is the one forgotten.
      this.facts.delete(key);
    } else {
      fact = new ProbedFact({
        probe: (deadline) => probeVersion(identity.path, env, deadline),
        holdsFor: (answer) => (answer.ok ? Number.POSITIVE_INFINITY : opts.recheckFailuresMs),
        timeoutMs: opts.timeoutMs,
        maxRetryMs: retryCap(opts.recheckFailuresMs),
        slots: this.slots,
        lifetime: this.lifetime,
      });
    }
    this.facts.set(key, fact);
    if (this.facts.size > MAX_REMEMBERED) {
      const oldest = this.facts.keys().next().value;
      if (oldest !== undefined) this.facts.delete(oldest);
    }
    return fact;
  }
}

/** Retries after a missed run come at most a re-check period apart: 1 s to a minute. */
export const retryCap = (recheckMs: number) => Math.min(60_000, Math.max(1000, recheckMs));

async function probeVersion(
  path: string,
  env: Record<string, string>,
  deadline: AbortSignal,
): Promise<ProbeOutcome<VersionAnswer>> {
  const r = await probeOutput(path, ['--version'], { env, deadline });
  const first = (r.output.split('\n')[0] ?? '').trim().slice(0, 200);
  if (r.timedOut) return { answered: false, why: 'probe timed out' };
  if (r.errno && !CANNOT_RUN.has(r.errno)) {
    return { answered: false, why: `could not be run: ${first}` };
  }
  if (r.signal) return { answered: false, why: `ended by ${r.signal}` };
  if (!r.ok)
    return { answered: true, value: { ok: false, why: `failed: ${first || 'no output'}` } };
  return { answered: true, value: { ok: true, output: r.output } };
}
