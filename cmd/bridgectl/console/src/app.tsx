import { useEffect, useRef } from 'preact/hooks';
import { ApprovalsPage, useWaitingCount } from './pages/approvals';
import { CollabPage } from './pages/collab';
import { OverviewPage } from './pages/overview';
import { SessionPage } from './pages/session';
import { SessionsPage } from './pages/sessions';
import { href, route } from './router';

const PAGES = [
  ['', 'Overview'],
  ['sessions', 'Sessions'],
  ['approvals', 'Approvals'],
  ['collab', 'Context & messages'],
] as const;

export function App() {
  const [page, id] = route.value;
  const main = useRef<HTMLElement>(null);
  // A new page moves the focus to its content, as a page load would.
  useEffect(() => {
    main.current?.focus();
  }, [page, id]);
  const waiting = useWaitingCount();
  return (
    <>
      <button type="button" class="skip" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <span class="brand">Agent Bridge</span>
        <nav aria-label="Console">
          <ul>
            {PAGES.map(([name, label]) => (
              <li key={name}>
                <a href={href(name)} aria-current={(page ?? '') === name ? 'page' : undefined}>
                  {label}
                  {name === 'approvals' && waiting > 0 ? (
                    <span class="badge">
                      {waiting}
                      <span class="sr-only"> waiting</span>
                    </span>
                  ) : null}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {page === 'sessions' && id ? (
          <SessionPage key={id} id={id} />
        ) : page === 'sessions' ? (
          <SessionsPage />
        ) : page === 'approvals' ? (
          <ApprovalsPage />
        ) : page === 'collab' ? (
          <CollabPage />
        ) : (
          <OverviewPage />
        )}
      </main>
    </>
  );
}
