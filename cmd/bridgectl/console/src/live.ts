import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api';

/**
 * Reads `path` now and every `everyMs` while the page shows it: the
 * latest answer, or the error of the latest failure.
 */
export function usePolled<T>(
  path: string,
  everyMs = 3_000,
): { data?: T; error?: string; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let gone = false;
    const load = () =>
      getJson<T>(path).then(
        (data) => !gone && setState({ data }),
        (err: Error) => !gone && setState((s) => ({ ...s, error: err.message })),
      );
    void load();
    const timer = setInterval(load, everyMs);
    return () => {
      gone = true;
      clearInterval(timer);
    };
  }, [path, everyMs, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** A time as people read it, in their own time zone. */
export const when = (iso: string | number | undefined) =>
  iso ? new Date(iso).toLocaleString() : '—';
