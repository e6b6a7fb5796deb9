import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

export interface TlsFileWatch {
  close(): void;
}

/**
 * Calls `onChange` once `debounceMs` after the last change to any of
 * `paths`. Directories are watched rather than files: tools replace
 * certificates by writing a new file and renaming it over the old one (and
 * Kubernetes swaps a symlink), which a watch on the old inode never sees.
 * A change to a symlink's target in another directory is not seen; SIGHUP
 * covers that.
 */
export function watchTlsFiles(
  paths: readonly string[],
  onChange: () => void,
  debounceMs: number,
  onError: (err: Error) => void,
): TlsFileWatch {
  const byDir = new Map<string, Set<string>>();
  for (const p of paths) {
    const names = byDir.get(dirname(p)) ?? new Set<string>();
    names.add(basename(p));
    byDir.set(dirname(p), names);
  }
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
    timer.unref();
  };
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null || names.has(String(name))) changed();
      });
      w.on('error', onError);
      watchers.push(w);
    } catch (err) {
      onError(err as Error);
    }
  }
  return {
    close() {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
