import { useEffect, useRef, useState } from 'preact/hooks';
import { Alert } from '../alert';
import { feed, postJson } from '../api';
import { type ChatItem, Conversation } from '../chat';
import { usePolled, when } from '../live';
import type { SessionEvent, SessionInfo } from '../types';
import { ChatView } from './chat-view';

type Link = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed' | 'lost';

/**
 * A session's events from the console's feed, folded into its
 * conversation: the browser's EventSource reconnects by itself after a
 * drop and sends the last seq it got, so the feed resumes after it; a
 * repeat would be dropped by seq all the same. A feed closed for good
 * (signed out, the console restarted) can be opened again from the last
 * seq shown.
 */
function useSessionEvents(id: string) {
  const conversation = useRef(new Conversation());
  const raw = useRef<SessionEvent[]>([]);
  const [, setVersion] = useState(0);
  const [link, setLink] = useState<Link>('connecting');
  const [failure, setFailure] = useState<string | undefined>();
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let frame = 0;
    const redraw = () => {
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        setVersion((v) => v + 1);
      });
    };
    const after = conversation.current.lastSeq;
    const source = feed(`/api/sessions/${encodeURIComponent(id)}/events?after=${after}`);
    source.addEventListener('open', () => setLink('live'));
    source.addEventListener('session-event', (m) => {
      const e = JSON.parse((m as MessageEvent<string>).data) as SessionEvent;
      if (conversation.current.add(e)) raw.current.push(e);
      redraw();
    });
    source.addEventListener('end', () => {
      source.close();
      setLink('ended');
    });
    source.addEventListener('failure', (m) => {
      source.close();
      setFailure((JSON.parse((m as MessageEvent<string>).data) as { error: string }).error);
      setLink('failed');
    });
    source.addEventListener('error', () => {
      setLink((l) =>
        l === 'ended' || l === 'failed'
          ? l
          : source.readyState === EventSource.CLOSED
            ? 'lost'
            : 'reconnecting',
      );
    });
    return () => {
      source.close();
      cancelAnimationFrame(frame);
    };
  }, [id, attempt]);
  return {
    conversation: conversation.current,
    raw: raw.current,
    link,
    failure,
    reconnect: () => setAttempt((a) => a + 1),
  };
}

function Controls({ id, info }: { id: string; info: SessionInfo | undefined }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [said, setSaid] = useState('');
  const act = async (what: string, body: unknown, done: string) => {
    setError(undefined);
    try {
      await postJson(`/api/sessions/${encodeURIComponent(id)}/${what}`, body);
      setSaid(done);
      return true;
    } catch (err) {
      setError((err as Error).message);
      return false;
    }
  };
  const running = info?.status === 'RUNNING' || info?.status === 'STARTING';
  return (
    <section aria-label="Send and control" class="card controls">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (await act('input', { text }, 'Input sent.')) setText('');
        }}
      >
        <label for="input-text">Message to the agent</label>
        <textarea
          id="input-text"
          rows={2}
          required
          value={text}
          disabled={!running}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <div class="actions">
          <button type="submit" disabled={!running}>
            Send
          </button>
          <button
            type="button"
            disabled={!running}
            onClick={() => act('interrupt', {}, 'Interrupt sent.')}
          >
            Interrupt turn
          </button>
          <button
            type="button"
            class="danger"
            disabled={!running}
            onClick={() => act('stop', {}, 'Stop requested.')}
          >
            Stop session
          </button>
        </div>
      </form>
      <p role="status" class="muted">
        {said}
      </p>
      <Alert message={error} />
    </section>
  );
}

/** The newest finished reply, for screen readers: announced once, when it is complete. */
function lastReply(items: ChatItem[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind === 'agent' && !item.streaming) return `Agent: ${item.text.slice(0, 300)}`;
  }
  return '';
}

export function SessionPage({ id }: { id: string }) {
  const info = usePolled<SessionInfo>(`/api/sessions/${encodeURIComponent(id)}`, 2_000);
  const { conversation, raw, link, failure, reconnect } = useSessionEvents(id);
  const [tab, setTab] = useState<'chat' | 'raw'>('chat');
  const s = info.data;
  return (
    <>
      <h1>Session {s?.name || id}</h1>
      <Alert message={s ? undefined : info.error} />
      {s ? (
        <p class="facts-line">
          <span class={`pill ${s.status.toLowerCase()}`}>{s.status.toLowerCase()}</span>{' '}
          {s.provider}
          {s.daemon ? ` on ${s.daemon}` : ''} · project {s.projectId} · {s.repoPath} · started{' '}
          {when(s.createdAt)}
          {s.error ? <span class="error"> · {s.error}</span> : null}
        </p>
      ) : null}
      <p class="muted">
        <span role="status">
          Events: {link}
          {failure ? `: ${failure}` : ''}
        </span>{' '}
        · last seq {conversation.lastSeq}{' '}
        {link === 'lost' ? (
          <button type="button" onClick={reconnect}>
            Reconnect
          </button>
        ) : null}
      </p>
      <p class="sr-only" aria-live="polite">
        {lastReply(conversation.items)}
      </p>
      <Controls id={id} info={s} />
      <fieldset class="tabs">
        <legend class="sr-only">View</legend>
        <button type="button" aria-pressed={tab === 'chat'} onClick={() => setTab('chat')}>
          Conversation
        </button>
        <button type="button" aria-pressed={tab === 'raw'} onClick={() => setTab('raw')}>
          Raw events
        </button>
      </fieldset>
      {tab === 'chat' ? (
        <ChatView items={conversation.items} />
      ) : (
        <ol class="raw" aria-label="Raw events">
          {raw.map((e) => (
            <li key={e.seq} data-seq={e.seq}>
              <span class="seq">#{e.seq}</span> <strong>{e.type}</strong> {e.text}
              {e.data && Object.keys(e.data).length ? (
                <pre>{JSON.stringify(e.data, null, 2)}</pre>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
