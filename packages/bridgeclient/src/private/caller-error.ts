/** An error a caller's callback (onEvent, permissions) threw: runTask rejects with it. */
export class CallerError {
  constructor(readonly error: unknown) {}
}

/** Runs a caller's callback; what it throws is marked as the caller's, to be rethrown as is. */
export async function callback<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new CallerError(err);
  }
}
