import { BridgeClient, type BridgeClientOptions } from '@agent-bridge/bridgeclient';
import { CliError, type CommandContext } from '@agent-bridge/cli';
import { explainConnectionError } from './connection-errors.js';
import { flagOf, resolveSettings, type Settings } from './connection-settings.js';
import type { CtlIo } from './ctl-io.js';
import { EXIT } from './exit-codes.js';
import { readSettingFiles } from './setting-files.js';

/**
 * The SDK options its construction errors name, as bridgectl's settings:
 * the files are checked before (setting-files.ts), so what is left is
 * the values of flags, variables and profile keys.
 */
const SDK_OPTION = [
  ['target', 'address'],
  ['jwt.projectId', 'project'],
  ['jwt.issuer', 'issuer'],
  ['jwt.subject', 'subject'],
  ['jwt.keyId', 'kid'],
] as const;

/** A client for the settings; the files are read here so a bad one is named with its flag. */
export function connect(settings: Settings): BridgeClient {
  const options = clientOptionsOf(settings);
  return sdkChecked(
    settings,
    () => new BridgeClient({ ...options, target: settings.values.address as string }),
  );
}

/**
 * The SDK's options for the settings, but the target: their files read and
 * checked (a bad one is named with its flag), the retries and timeouts a
 * person waiting at a terminal wants.
 */
export function clientOptionsOf(settings: Settings): Omit<BridgeClientOptions, 'target'> {
  const files = readSettingFiles(settings);
  const { values } = settings;
  return {
    mtls: {
      ca: files.ca,
      cert: files.cert,
      key: files.key,
      ...(values.server_name ? { serverName: values.server_name } : {}),
    },
    jwt: {
      privateKey: files.jwtKey,
      issuer: values.issuer as string,
      subject: values.subject ?? 'bridgectl',
      projectId: values.project as string,
      ...(values.kid ? { keyId: values.kid } : {}),
    },
    // A person waits at the other end: fail in seconds, not after the SDK's minute of retries.
    retry: { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 1000 },
    timeouts: { callMs: 15_000, reconnectMs: 30_000 },
  };
}

/** The options of `clientOptionsOf`, its tokens naming `project` instead of the settings' one. */
export function asProject(
  options: Omit<BridgeClientOptions, 'target'>,
  project: string,
): Omit<BridgeClientOptions, 'target'> {
  return { ...options, jwt: { ...options.jwt, projectId: project } };
}

/** Runs `make`, naming an SDK option it refuses as the setting (flag, variable, profile key) it came from. */
export function sdkChecked<T>(settings: Settings, make: () => T): T {
  const { values } = settings;
  try {
    return make();
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    const option = SDK_OPTION.find(([name]) => err.message.startsWith(name));
    if (!option) throw new CliError(EXIT.file, `bad connection settings: ${err.message}`);
    const [name, key] = option;
    const why = err.message
      .slice(name.length)
      .replace(/^[:\s]+/, '')
      .replace(/, got .*$/, '');
    throw new CliError(
      EXIT.usage,
      // Named as the user set it: "--address", "$BRIDGECTL_ADDRESS" or "address of profile …".
      `${settings.from[key] ?? `the default of ${flagOf(key)}`} is "${values[key] ?? ''}": ${why}`,
    );
  }
}

/** Runs `fn` with a client for the command's settings, closing it afterwards. */
export async function withClient<T>(
  ctx: CommandContext<CtlIo>,
  fn: (client: BridgeClient) => Promise<T>,
): Promise<T> {
  const settings = await resolveSettings(ctx.values, ctx.io);
  const client = connect(settings);
  try {
    return await fn(client);
  } catch (err) {
    throw explainConnectionError(err, settings);
  } finally {
    client.close();
  }
}
