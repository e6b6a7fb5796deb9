import { useState } from 'preact/hooks';
import { Alert } from '../alert';
import { postJson } from '../api';
import { usePolled, when } from '../live';
import { ProjectPicker, useProjects } from '../project-picker';
import { href } from '../router';
import { type Overview, providersOf, type SessionInfo } from '../types';

const STATES = ['', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED'];

/** `daemons`: with a fleet, those that answered (none chosen: the one with the most room). */
function StartForm(props: { providers: string[]; daemons: string[]; projects: string[] }) {
  const { providers, daemons, projects } = props;
  const [project, setProject] = useState('');
  const [provider, setProvider] = useState('');
  const [daemon, setDaemon] = useState('');
  const [repoPath, setRepoPath] = useState('');
  const [prompt, setPrompt] = useState('');
  const [name, setName] = useState('');
  const [task, setTask] = useState(true);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const started = await postJson<{ sessionId: string }>('/api/sessions', {
        provider: provider || providers[0],
        repoPath,
        prompt,
        name,
        task,
        daemon,
        project,
      });
      location.hash = href('sessions', started.sessionId);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card start" onSubmit={submit} aria-labelledby="start-h">
      <h2 id="start-h">Start</h2>
      <ProjectPicker
        id="start-project"
        projects={projects}
        value={project || (projects[0] ?? '')}
        onChange={setProject}
      />
      <label for="start-provider">Provider</label>
      <select
        id="start-provider"
        value={provider || providers[0]}
        onChange={(e) => setProvider(e.currentTarget.value)}
      >
        {providers.map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </select>
      {daemons.length ? (
        <>
          <label for="start-daemon">Daemon</label>
          <select
            id="start-daemon"
            value={daemon}
            onChange={(e) => setDaemon(e.currentTarget.value)}
          >
            <option value="">the one with the most room</option>
            {daemons.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </>
      ) : null}
      <label for="start-repo">Repository path on the daemon's host</label>
      <input
        id="start-repo"
        required
        value={repoPath}
        onInput={(e) => setRepoPath(e.currentTarget.value)}
        placeholder="/srv/repos/app"
      />
      <label for="start-prompt">Prompt</label>
      <textarea
        id="start-prompt"
        rows={3}
        value={prompt}
        required={task}
        onInput={(e) => setPrompt(e.currentTarget.value)}
      />
      <label for="start-name">Name (optional)</label>
      <input id="start-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label class="check">
        <input type="checkbox" checked={task} onChange={(e) => setTask(e.currentTarget.checked)} />{' '}
        A task: stop the session when its turn completes
      </label>
      <button type="submit" disabled={busy}>
        {task ? 'Start task' : 'Start session'}
      </button>
      <Alert message={error} />
    </form>
  );
}

export function SessionsPage() {
  const [state, setState] = useState('');
  const [provider, setProvider] = useState('');
  const [project, setProject] = useState('');
  const projects = useProjects();
  // The tokens of the pages before this one, to go back.
  const [pages, setPages] = useState<string[]>(['']);
  const page = pages[pages.length - 1] ?? '';
  const query = new URLSearchParams({
    size: '25',
    ...(state ? { state } : {}),
    ...(provider ? { provider } : {}),
    ...(project ? { project } : {}),
    ...(page ? { page } : {}),
  });
  const { data, error } = usePolled<{
    sessions: SessionInfo[];
    nextPageToken: string;
    unreachable: string[];
  }>(`/api/sessions?${query}`);
  const overview = usePolled<Overview>('/api/overview', 30_000);
  const providers = providersOf(overview.data);
  const daemons = overview.data?.fleet
    ? overview.data.daemons.filter((d) => d.reachable).map((d) => d.name)
    : [];
  const refilter = (f: () => void) => {
    f();
    setPages(['']);
  };
  return (
    <>
      <h1>Sessions</h1>
      {providers.length ? (
        <StartForm providers={providers} daemons={daemons} projects={projects} />
      ) : null}
      <section aria-labelledby="list-h">
        <h2 id="list-h">
          {projects.length > 1 ? 'Sessions' : `Sessions of project ${projects[0] ?? ''}`}
        </h2>
        <div class="filters">
          <ProjectPicker
            id="f-project"
            projects={projects}
            value={project}
            onChange={(p) => refilter(() => setProject(p))}
            any
          />
          <label for="f-state">State</label>
          <select
            id="f-state"
            value={state}
            onChange={(e) => refilter(() => setState(e.currentTarget.value))}
          >
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s ? s.toLowerCase() : 'any'}
              </option>
            ))}
          </select>
          <label for="f-provider">Provider</label>
          <select
            id="f-provider"
            value={provider}
            onChange={(e) => refilter(() => setProvider(e.currentTarget.value))}
          >
            <option value="">any</option>
            {providers.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <Alert message={error} />
        {data?.unreachable.length ? (
          <p role="status">
            Not listed: the sessions of {data.unreachable.join(', ')}, which did not answer.
          </p>
        ) : null}
        <ul class="plain sessions">
          {(data?.sessions ?? []).map((s) => (
            <li key={s.sessionId} class="card row">
              <a href={href('sessions', s.sessionId)}>{s.name || s.sessionId}</a>
              <span class={`pill ${s.status.toLowerCase()}`}>{s.status.toLowerCase()}</span>
              <span>{s.provider}</span>
              {s.daemon ? <span>on {s.daemon}</span> : null}
              {projects.length > 1 ? <span>project {s.projectId}</span> : null}
              <span class="muted">{s.repoPath}</span>
              <span class="muted">started {when(s.createdAt)}</span>
            </li>
          ))}
        </ul>
        {data && data.sessions.length === 0 ? <p>No session matches.</p> : null}
        <div class="actions">
          <button
            type="button"
            disabled={pages.length < 2}
            onClick={() => setPages(pages.slice(0, -1))}
          >
            Previous page
          </button>
          <button
            type="button"
            disabled={!data?.nextPageToken}
            onClick={() => data && setPages([...pages, data.nextPageToken])}
          >
            Next page
          </button>
        </div>
      </section>
    </>
  );
}
