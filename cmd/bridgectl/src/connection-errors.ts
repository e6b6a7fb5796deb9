import { TlsRefusalError, UnavailableError } from '@agent-bridge/bridgeclient';
import { CliError } from '@agent-bridge/cli';
import { flagOf, type Settings } from './connection-settings.js';
import { EXIT } from './exit-codes.js';

/**
 * A failure to reach the daemon, said in bridgectl's terms: which address,
 * certificate or CA file, where that setting came from, and what to do.
 * TLS refusals (the SDK's TlsRefusalError) are exit 5, the daemon refusing
 * this client or this client refusing the daemon; the network is exit 4.
 * Anything else is returned as it is, for describeError.
 */
export function explainConnectionError(error: unknown, settings: Settings): unknown {
  if (!(error instanceof UnavailableError)) return error;
  const { values, from } = settings;
  const at = `${values.address} (${from.address})`;
  if (!(error instanceof TlsRefusalError)) {
    const why = error.details.replace(/^no connection to the daemon(?:: |$)/, '');
    return new CliError(EXIT.unavailable, `daemon unreachable at ${at}${why ? `: ${why}` : ''}`);
  }
  switch (error.reason) {
    case 'client_certificate':
      return new CliError(
        EXIT.refused,
        `the daemon at ${at} refused the client certificate ${values.cert} (${from.cert}): ${
          error.tlsCode
            ? `TLS alert ${error.tlsCode}`
            : 'it closed the connection right after the TLS handshake'
        }; revoked, expired, not issued by a CA the daemon trusts, or not a client certificate? Ask its operator, or use another certificate`,
      );
    case 'server_name': {
      const source = values.server_name
        ? `${from.server_name}`
        : `the host of the address, ${from.address}`;
      return new CliError(
        EXIT.refused,
        `${error.details} (the name comes from ${source}): set ${flagOf('server_name')} (profile key server_name) to a name it carries`,
      );
    }
    case 'server_certificate':
      return new CliError(
        EXIT.refused,
        `${error.details}: is ${values.ca} (${from.ca}) the CA bundle of the daemon at ${values.address}?`,
      );
    default:
      return new CliError(EXIT.refused, `${error.details} (the daemon at ${at})`);
  }
}
