import { constants } from 'node:fs';
import { access, mkdtemp, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { loadIssuerKeys } from '@agent-bridge/auth';
import type { BridgeConfig } from '@agent-bridge/config';
import { resolveBinary, resolveProviderDefinition } from '@agent-bridge/providers/host';
import { loadTlsMaterial } from '@agent-bridge/server';

/** What stops the daemon from starting, and what only makes a provider unavailable. */
export interface StartupCheck {
  /** Each a line naming the configuration key, the path and the reason. */
  problems: string[];
  warnings: string[];
}

/**
 * Everything `run` needs from the host, checked before anything starts:
 * the TLS files and JWT keys readable and valid, the audit file and the
 * state directory writable or creatable. `check-config` reports the same
 * lines, so a configuration it passes does not fail `run` for any of
 * them; `run` exits 2 on them (a configuration problem, which the systemd
 * unit does not restart on). A provider binary that cannot be found is a
 * warning: the daemon serves the other providers, and the binary may be
 * installed later. Nothing is changed on disk, but for a directory made and
 * removed at once to learn whether new entries can be created where the
 * audit file or the state directory would be.
 */
export async function checkStartup(
  config: BridgeConfig,
  opts: { stateDir: string; stateDirKey: string; pathEnv: string },
): Promise<StartupCheck> {
  const problems: string[] = [];
  const warnings: string[] = [];
  const problem = (p: Promise<unknown>, prefix = '') =>
    p.catch((err: Error) => {
      problems.push(`${prefix}${err.message}`);
    });
  await problem(
    loadTlsMaterial(config.tls).then((material) => warnings.push(...material.unusedCrls)),
  );
  await problem(loadIssuerKeys(config.auth.jwtPublicKeys), 'auth.jwt_public_keys: ');
  if (config.logging.auditPath !== '') {
    await problem(writableFile(config.logging.auditPath), 'logging.audit_path: ');
  }
  await problem(privateDirectory(opts.stateDir), `${opts.stateDirKey}: `);
  for (const [id, def] of Object.entries(config.providers)) {
    const { adapter, binary } = resolveProviderDefinition(id, def);
    if (adapter === 'mock') continue;
    await resolveBinary(binary, opts.pathEnv).catch((err: Error) => {
      warnings.push(
        `providers.${id}.binary: ${err.message}: the provider is unavailable until it can be found`,
      );
    });
  }
  return { problems, warnings };
}

/** A file the daemon appends to: writable if it exists, else creatable. */
async function writableFile(path: string): Promise<void> {
  const st = await stat(path).catch(notFound);
  if (!st) return creatable(path);
  if (!st.isFile()) throw new Error(`${path} is not a file`);
  await access(path, constants.W_OK).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`${path} is not writable by this user (${err.code})`, { cause: err });
  });
}

/** A directory only this user may write to: as it is, or creatable with mode 0700. */
async function privateDirectory(dir: string): Promise<void> {
  const st = await stat(dir).catch(notFound);
  if (!st) return creatable(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new Error(`${dir} belongs to uid ${st.uid}, not to this user (uid ${uid})`);
  }
  if ((st.mode & 0o022) !== 0) {
    throw new Error(
      `${dir} may be written by others (mode ${(st.mode & 0o777).toString(8)}): make it 0700`,
    );
  }
  await access(dir, constants.W_OK | constants.X_OK).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`${dir} is not writable by this user (${err.code})`, { cause: err });
  });
}

/**
 * `path` does not exist: can it be made? Its nearest existing ancestor must
 * be a directory that takes new entries. Asked by making one (and removing
 * it at once): permissions alone do not tell, e.g. under /proc, where even
 * root cannot create anything.
 */
async function creatable(path: string): Promise<void> {
  let ancestor = dirname(path);
  for (;;) {
    const st = await stat(ancestor).catch(notFound);
    if (st) {
      if (!st.isDirectory()) {
        throw new Error(`cannot create ${path}: ${ancestor} is not a directory`);
      }
      break;
    }
    const up = dirname(ancestor);
    if (up === ancestor) break;
    ancestor = up;
  }
  let probe: string;
  try {
    probe = await mkdtemp(join(ancestor, '.agent-bridge-check-'));
  } catch (err) {
    throw new Error(
      `cannot create ${path}: ${ancestor} does not take new entries (${(err as NodeJS.ErrnoException).code})`,
      { cause: err },
    );
  }
  await rmdir(probe);
}

function notFound(err: NodeJS.ErrnoException): undefined {
  if (err.code === 'ENOENT') return undefined;
  throw new Error(`${err.path ?? 'a path'}: ${err.code ?? err.message}`, { cause: err });
}
