import { Alert } from '../alert';
import { usePolled, when } from '../live';
import type { Overview } from '../types';

function uptime(startedAt: string | undefined): string {
  if (!startedAt) return '—';
  const s = Math.max(0, Math.round((Date.now() - new Date(startedAt).getTime()) / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h} h ${m} min` : m ? `${m} min ${s % 60} s` : `${s} s`;
}

export function OverviewPage() {
  const { data, error } = usePolled<Overview>('/api/overview');
  return (
    <>
      <h1>Overview</h1>
      <Alert message={error && `The daemon did not answer: ${error}`} />
      {data ? (
        <>
          <section aria-labelledby="daemon-h" class="card">
            <h2 id="daemon-h">Daemon {data.target}</h2>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <span class={`pill ${data.health.status}`}>{data.health.status}</span>
              </dd>
              <dt>Version</dt>
              <dd>{data.health.version}</dd>
              <dt>Up for</dt>
              <dd title={when(data.health.startedAt)}>{uptime(data.health.startedAt)}</dd>
              <dt>Project</dt>
              <dd>{data.projectId}</dd>
              <dt>Active sessions</dt>
              <dd>
                {data.health.activeSessions} of {data.health.sessionLimit} (
                {data.health.projectActiveSessions} of {data.health.projectSessionLimit} in this
                project, room for {data.health.freeCapacity} more)
              </dd>
              <dt>Retained sessions</dt>
              <dd>{data.health.retainedSessions}</dd>
            </dl>
          </section>
          <section aria-labelledby="states-h" class="card">
            <h2 id="states-h">Sessions by state</h2>
            <ul class="counts">
              {['STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED'].map((s) => (
                <li key={s}>
                  <span class={`pill ${s.toLowerCase()}`}>{s.toLowerCase()}</span>{' '}
                  {data.byState[s] ?? 0}
                </li>
              ))}
            </ul>
          </section>
          <section aria-labelledby="providers-h" class="card">
            <h2 id="providers-h">Providers</h2>
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
                  {data.providers.map((p) => (
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
        </>
      ) : error ? null : (
        <p>Asking the daemon…</p>
      )}
    </>
  );
}
