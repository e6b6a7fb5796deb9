// Calls to the console's own server (never to the daemon): JSON in and
// out, each with the page key the sign-in gave this browser.

/** A refusal or failure, with the server's message for the person. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const STORE = 'bridge-console-key';

/**
 * The page key: handed over once in the sign-in redirect's fragment (which
 * no server sees), then kept in this origin's storage (this port's only).
 */
function pageKey(): string {
  const given = /^#key=([A-Za-z0-9_-]+)$/.exec(location.hash)?.[1];
  if (given) {
    localStorage.setItem(STORE, given);
    history.replaceState(null, '', '#/');
  }
  return localStorage.getItem(STORE) ?? '';
}

const key = pageKey();

async function answer<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new ApiError(res.status, body.error ?? `${res.status} ${res.statusText}`);
  return body as T;
}

export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(
    await fetch(path, { headers: { accept: 'application/json', 'x-console-key': key } }),
  );
}

export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-console-key': key },
    body: JSON.stringify(body),
  });
  return answer<T>(res);
}

/** An event feed of the console (EventSource sends no headers: the key goes in the query). */
export function feed(path: string): EventSource {
  return new EventSource(`${path}${path.includes('?') ? '&' : '?'}key=${encodeURIComponent(key)}`);
}
