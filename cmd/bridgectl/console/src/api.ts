// Calls to the console's own server (never to the daemon): JSON in and
// out, the CSRF token on every request that changes something.

/** A refusal or failure, with the server's message for the person. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let csrf: Promise<string> | undefined;
const csrfToken = (): Promise<string> => {
  csrf ??= getJson<{ csrf: string }>('/api/csrf').then((r) => r.csrf);
  return csrf;
};

async function answer<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new ApiError(res.status, body.error ?? `${res.status} ${res.statusText}`);
  return body as T;
}

export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(await fetch(path, { headers: { accept: 'application/json' } }));
}

export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': await csrfToken() },
    body: JSON.stringify(body),
  });
  return answer<T>(res);
}
