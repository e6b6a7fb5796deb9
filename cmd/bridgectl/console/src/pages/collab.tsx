import { useEffect, useRef, useState } from 'preact/hooks';
import { Alert } from '../alert';
import { getJson, postJson } from '../api';
import { usePolled, when } from '../live';
import { ProjectPicker, useProjects } from '../project-picker';

interface Party {
  kind: string;
  id: string;
  name: string;
}

interface Post {
  id: number;
  from: Party;
  postedAt: string;
  category: string;
  priority: string;
  content: string;
  targets: string[];
}

interface Message {
  id: number;
  from: Party;
  to: Party;
  sentAt: string;
  content: string;
  deliver: string;
}

const who = (p: Party) => (p.kind === 'person' ? `${p.name} (person)` : p.name || p.id.slice(0, 8));

/**
 * The bus's posts, read on from the last one every few seconds, and the
 * daemon they are read through (a fleet's daemons number posts each their
 * own way: another daemon is read from its first post).
 */
function usePosts(project: string): {
  posts: Post[];
  daemon: string;
  error?: string;
  refresh: () => void;
} {
  const [daemon, setDaemon] = useState('');
  const [posts, setPosts] = useState<Post[]>([]);
  const [error, setError] = useState<string | undefined>();
  const cursor = useRef(0);
  const readFrom = useRef('');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let gone = false;
    let busy = false;
    const load = async () => {
      // One read at a time: two would start from the same cursor.
      if (busy) return;
      busy = true;
      try {
        for (let page = 0; page < 10; page++) {
          const got = await getJson<{ posts: Post[]; cursor: number; daemon: string }>(
            `/api/context?after=${cursor.current}${inProject(project)}`,
          );
          if (gone) break;
          setDaemon(got.daemon);
          if (readFrom.current !== got.daemon) {
            const first = readFrom.current === '';
            readFrom.current = got.daemon;
            if (!first) {
              cursor.current = 0;
              setPosts([]);
              continue;
            }
          }
          if (got.posts.length === 0) break;
          cursor.current = got.cursor;
          setPosts((p) => {
            const seen = new Set(p.map((x) => x.id));
            return [...p, ...got.posts.filter((x) => !seen.has(x.id))];
          });
        }
        if (!gone) setError(undefined);
      } catch (err) {
        if (!gone) setError((err as Error).message);
      } finally {
        busy = false;
      }
    };
    void load();
    const timer = setInterval(load, 3_000);
    return () => {
      gone = true;
      clearInterval(timer);
    };
  }, [tick]);
  return { posts, daemon, error, refresh: () => setTick((t) => t + 1) };
}

function PostForm({ done, project }: { done: () => void; project: string }) {
  const [category, setCategory] = useState('note');
  const [content, setContent] = useState('');
  const [priority, setPriority] = useState('info');
  const [targets, setTargets] = useState('');
  const [error, setError] = useState<string | undefined>();
  return (
    <form
      class="card"
      aria-labelledby="post-h"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          await postJson('/api/context', { category, content, priority, targets, project });
          setContent('');
          done();
        } catch (err) {
          setError((err as Error).message);
        }
      }}
    >
      <h2 id="post-h">Post to the context bus</h2>
      <label for="post-category">Category</label>
      <input
        id="post-category"
        required
        value={category}
        onInput={(e) => setCategory(e.currentTarget.value)}
      />
      <label for="post-content">Content</label>
      <textarea
        id="post-content"
        rows={3}
        required
        value={content}
        onInput={(e) => setContent(e.currentTarget.value)}
      />
      <label for="post-priority">Priority</label>
      <select
        id="post-priority"
        value={priority}
        onChange={(e) => setPriority(e.currentTarget.value)}
      >
        <option value="info">info</option>
        <option value="high">high</option>
        <option value="urgent">urgent</option>
      </select>
      <label for="post-targets">
        For (session names or roles, comma-separated; empty: everyone)
      </label>
      <input id="post-targets" value={targets} onInput={(e) => setTargets(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit">Post</button>
      </div>
      <Alert message={error} />
    </form>
  );
}

function MessageForm({ done, project }: { done: () => void; project: string }) {
  const [toKind, setToKind] = useState('session');
  const [to, setTo] = useState('');
  const [content, setContent] = useState('');
  const [deliver, setDeliver] = useState('turn');
  const [error, setError] = useState<string | undefined>();
  const [said, setSaid] = useState('');
  return (
    <form
      class="card"
      aria-labelledby="msg-h"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          const r = await postJson<{ messages: Message[] }>('/api/messages', {
            toKind,
            to,
            content,
            deliver,
            project,
          });
          setContent('');
          setSaid(`Sent to ${r.messages.map((m) => who(m.to)).join(', ')}.`);
          done();
        } catch (err) {
          setError((err as Error).message);
        }
      }}
    >
      <h2 id="msg-h">Message an agent</h2>
      <label for="msg-kind">To a</label>
      <select id="msg-kind" value={toKind} onChange={(e) => setToKind(e.currentTarget.value)}>
        <option value="session">session (name or id)</option>
        <option value="role">role (every live session of it)</option>
        <option value="person">person</option>
      </select>
      <label for="msg-to">Name</label>
      <input id="msg-to" required value={to} onInput={(e) => setTo(e.currentTarget.value)} />
      <label for="msg-content">Message</label>
      <textarea
        id="msg-content"
        rows={3}
        required
        value={content}
        onInput={(e) => setContent(e.currentTarget.value)}
      />
      <label for="msg-deliver">Deliver</label>
      <select id="msg-deliver" value={deliver} onChange={(e) => setDeliver(e.currentTarget.value)}>
        <option value="turn">as a turn: the agent gets it as input</option>
        <option value="inbox">to its inbox: the agent reads it when it checks</option>
      </select>
      <div class="actions">
        <button type="submit">Send message</button>
      </div>
      <p role="status" class="muted">
        {said}
      </p>
      <Alert message={error} />
    </form>
  );
}

/** `&project=…`, or nothing for the console's own project. */
const inProject = (project: string) => (project ? `&project=${encodeURIComponent(project)}` : '');

export function CollabPage() {
  const projects = useProjects();
  // '': the console's own project (the first).
  const [project, setProject] = useState('');
  return (
    <>
      <h1>Context and messages</h1>
      {projects.length > 1 ? (
        <div class="filters">
          <ProjectPicker
            id="collab-project"
            projects={projects}
            value={project || (projects[0] as string)}
            onChange={setProject}
          />
        </div>
      ) : null}
      <ProjectCollab key={project} project={project} />
    </>
  );
}

/** One project's context bus and the person's inbox there. */
function ProjectCollab({ project }: { project: string }) {
  const { posts, daemon, error, refresh } = usePosts(project);
  const inbox = usePolled<{ messages: Message[] }>(`/api/messages?${inProject(project)}`, 5_000);
  return (
    <>
      <section aria-labelledby="posts-h">
        <h2 id="posts-h">Context bus</h2>
        {daemon ? <p class="muted">Read and posted through daemon {daemon}.</p> : null}
        <Alert message={error} />
        {posts.length === 0 ? <p>Nothing posted yet.</p> : null}
        <ol class="plain posts">
          {[...posts].reverse().map((p) => (
            <li key={p.id} class="card post" data-post={p.id}>
              <p class="muted">
                #{p.id} · {p.category} · {p.priority} · {who(p.from)} · {when(p.postedAt)}
                {p.targets.length ? ` · for ${p.targets.join(', ')}` : ''}
              </p>
              <p class="content">{p.content}</p>
            </li>
          ))}
        </ol>
      </section>
      <PostForm done={refresh} project={project} />
      <section aria-labelledby="inbox-h">
        <h2 id="inbox-h">Your inbox</h2>
        <Alert message={inbox.error} />
        {inbox.data?.messages.length === 0 ? <p>No messages.</p> : null}
        <ol class="plain">
          {(inbox.data?.messages ?? []).map((m) => (
            <li key={m.id} class="card" data-message={m.id}>
              <p class="muted">
                #{m.id} from {who(m.from)} · {when(m.sentAt)}
              </p>
              <p class="content">{m.content}</p>
            </li>
          ))}
        </ol>
      </section>
      <MessageForm done={inbox.reload} project={project} />
    </>
  );
}
