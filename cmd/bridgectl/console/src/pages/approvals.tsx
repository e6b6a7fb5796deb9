import { signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Alert } from '../alert';
import { feed, getJson, postJson } from '../api';
import { href } from '../router';
import type { Approval } from '../types';

const waiting = signal<Approval[]>([]);

/**
 * How many requests wait now, for the navigation on every page: read every
 * few seconds (the approvals page's own feed updates it live meanwhile).
 */
export function useWaitingCount(): number {
  useEffect(() => {
    const load = () =>
      getJson<Approval[]>('/api/approvals/waiting').then(
        (list) => {
          waiting.value = list;
        },
        () => undefined,
      );
    void load();
    const timer = setInterval(load, 5_000);
    return () => clearInterval(timer);
  }, []);
  return waiting.value.length;
}

type Link = 'connecting' | 'live' | 'reconnecting' | 'lost';

/** The live list: one feed while the page shows, the whole list at each change. */
function useApprovalsFeed(): { link: Link; reconnect: () => void } {
  const [link, setLink] = useState<Link>('connecting');
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const source = feed('/api/approvals');
    source.addEventListener('open', () => setLink('live'));
    source.addEventListener('approvals', (e) => {
      waiting.value = JSON.parse((e as MessageEvent<string>).data) as Approval[];
    });
    source.addEventListener('error', () => {
      // Closed for good (signed out, the console restarted): what it showed may be stale.
      if (source.readyState === EventSource.CLOSED) {
        waiting.value = [];
        setLink('lost');
      } else setLink('reconnecting');
    });
    return () => source.close();
  }, [attempt]);
  return { link, reconnect: () => setAttempt((a) => a + 1) };
}

const LABELS: Record<string, string> = {
  allow_once: 'Allow once',
  allow_session: 'Allow for the session',
  deny: 'Deny',
};

function secondsLeft(expiresAt: number, now: number): string {
  if (!expiresAt) return 'no deadline';
  const s = Math.max(0, Math.round((expiresAt - now) / 1000));
  return `${s} s left`;
}

function ApprovalCard({ a, now }: { a: Approval; now: number }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const decide = async (decision: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await postJson('/api/approvals', {
        sessionId: a.sessionId,
        project: a.projectId,
        requestId: a.requestId,
        decision,
        ...(reason ? { reason } : {}),
      });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const id = `reason-${a.sessionId}-${a.requestId}`;
  return (
    <li class="card approval">
      <h2>
        {a.tool || 'tool'} <span class="muted">in</span>{' '}
        <a href={href('sessions', a.sessionId)}>{a.sessionName || a.sessionId.slice(0, 8)}</a>{' '}
        <span class="muted">
          ({a.provider}, project {a.projectId})
        </span>
      </h2>
      <p class="summary">{a.summary}</p>
      <details>
        <summary>Input (redacted)</summary>
        <pre>{JSON.stringify(a.input, null, 2)}</pre>
      </details>
      <p class="muted">
        {secondsLeft(a.expiresAt, now)}; then {a.fallback ?? 'deny'}
      </p>
      <label for={id}>Reason (optional)</label>
      <input id={id} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      <div class="actions">
        {a.options.map((o) => (
          <button
            key={o}
            type="button"
            disabled={busy}
            class={o === 'deny' ? 'danger' : ''}
            onClick={() => decide(o)}
          >
            {LABELS[o] ?? o}
          </button>
        ))}
      </div>
      <Alert message={error} />
    </li>
  );
}

export function ApprovalsPage() {
  const [now, setNow] = useState(Date.now());
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, []);
  const { link, reconnect } = useApprovalsFeed();
  const list = waiting.value;
  // A card answered here or elsewhere goes away: the focus it had moves to the heading.
  useEffect(() => {
    if (document.activeElement === document.body) heading.current?.focus();
  }, [list]);
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Approvals
      </h1>
      {link === 'lost' ? (
        <p role="alert" class="error">
          The console lost this page&apos;s live list.{' '}
          <button type="button" onClick={reconnect}>
            Reconnect
          </button>
        </p>
      ) : link === 'reconnecting' ? (
        <p role="status" class="muted">
          Reconnecting…
        </p>
      ) : null}
      <p role="status">
        {list.length === 0
          ? 'No permission request waits for an answer.'
          : `${list.length} waiting for an answer.`}
      </p>
      <ul class="plain">
        {list.map((a) => (
          <ApprovalCard key={`${a.sessionId}/${a.requestId}`} a={a} now={now} />
        ))}
      </ul>
    </>
  );
}
