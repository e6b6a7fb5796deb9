import { Alert } from '../alert';
import { usePolled, when } from '../live';
import type { DaemonView, Overview } from '../types';

const STATES = ['STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED'];

function uptime(startedAt: string | undefined): string {
  if (!startedAt) return '—';
  const s = Math.max(0, Math.round((Date.now() - new Date(startedAt).getTime()) / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h} h ${m} min` : m ? `${m} min ${s % 60} s` : `${s} s`;
}

function DaemonCard({ d, projectId }: { d: DaemonView; projectId: string }) {
  const id = `daemon-${d.name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  if (!d.reachable || !d.health) {
    return (
      <section aria-labelledby={id} class="card daemon">
        <h2 id={id}>Daemon {d.name}</h2>
        <p>
          <span class="pill failed">unreachable</span> {d.error}
        </p>
      </section>
    );
  }
  const { health } = d;
  return (
    <section aria-labelledby={id} class="card daemon">
      <h2 id={id}>Daemon {d.name}</h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`pill ${health.status}`}>{health.status}</span>
        </dd>
        <dt>Version</dt>
        <dd>{health.version}</dd>
        <dt>Up for</dt>
        <dd title={when(health.startedAt)}>{uptime(health.startedAt)}</dd>
        <dt>Project</dt>
        <dd>{projectId}</dd>
        <dt>Active sessions</dt>
        <dd>
          {health.activeSessions} of {health.sessionLimit} ({health.projectActiveSessions} of{' '}
          {health.projectSessionLimit} in project {projectId}, room for {health.freeCapacity} more)
        </dd>
        <dt>Retained sessions</dt>
        <dd>{health.retainedSessions}</dd>
      </dl>
      <h3>Providers</h3>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Available</th>
              <th scope="col">Version</th>
              <th scope="col">Permissions</th>
            </tr>
          </thead>
          <tbody>
            {(d.providers ?? []).map((p) => (
              <tr key={p.id}>
                <th scope="row">{p.id}</th>
                <td>{p.available ? 'yes' : `no: ${p.error}`}</td>
                <td>{p.version || '—'}</td>
                <td>
                  {p.permissionPolicy.mode}
                  {p.permissionPolicy.mode === 'ask'
                    ? ` (${p.permissionPolicy.defaultDecision} after ${Math.round(p.permissionPolicy.timeoutMs / 1000)} s)`
                    : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function OverviewPage() {
  const { data, error } = usePolled<Overview>('/api/overview');
  const away = data?.daemons.filter((d) => !d.reachable).length ?? 0;
  return (
    <>
      <h1>Overview</h1>
      <Alert
        message={error && `The ${data?.fleet ? 'fleet' : 'daemon'} did not answer: ${error}`}
      />
      {data ? (
        <>
          {data.fleet ? (
            <p>
              Fleet {data.target}: {data.daemons.length} daemon
              {data.daemons.length === 1 ? '' : 's'}
              {away ? `, ${away} not answering` : ''}.
            </p>
          ) : null}
          <section aria-labelledby="states-h" class="card">
            <h2 id="states-h">Sessions by state</h2>
            {data.projects.length === 1 ? (
              <ul class="counts">
                {STATES.map((s) => (
                  <li key={s}>
                    <span class={`pill ${s.toLowerCase()}`}>{s.toLowerCase()}</span>{' '}
                    {data.projects[0]?.byState[s] ?? 0}
                  </li>
                ))}
              </ul>
            ) : (
              <div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Project</th>
                      {STATES.map((s) => (
                        <th key={s} scope="col">
                          {s.toLowerCase()}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {data.projects.map((p) => (
                      <tr key={p.projectId}>
                        <th scope="row">{p.projectId}</th>
                        {STATES.map((s) => (
                          <td key={s}>{p.byState[s] ?? 0}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          {data.daemons.map((d) => (
            <DaemonCard key={d.name} d={d} projectId={data.projectId} />
          ))}
        </>
      ) : error ? null : (
        <p>Asking the daemon…</p>
      )}
    </>
  );
}
