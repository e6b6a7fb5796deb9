import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { Alert } from '../alert';
import { postJson } from '../api';
import { href } from '../router';
import type { Approval } from '../types';

const waiting = signal<Approval[]>([]);
const feedError = signal<string | undefined>(undefined);
/** How many requests wait now: the navigation shows it on every page. */
export const waitingCount = {
  get value() {
    return waiting.value.length;
  },
};

// One feed for the whole page: the server sends the full list at each change.
const feed = new EventSource('/api/approvals');
feed.addEventListener('approvals', (e) => {
  waiting.value = JSON.parse((e as MessageEvent<string>).data) as Approval[];
  feedError.value = undefined;
});
feed.addEventListener('error', () => {
  feedError.value = 'The console lost its connection; it reconnects by itself.';
});

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
        <span class="muted">({a.provider})</span>
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
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, []);
  const list = waiting.value;
  return (
    <>
      <h1>Approvals</h1>
      {feedError.value ? (
        <p role="status" class="error">
          {feedError.value}
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
