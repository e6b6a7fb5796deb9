import { parseArgs } from 'node:util';
import { VERSION } from '../version.js';

/** `bridge --help`. */
export const HELP = `bridge ${VERSION}: supervises AI coding agents and serves them over gRPC (TLS 1.3 mTLS + JWT)

Usage:
  bridge [run] --config <file>        start the daemon
  bridge check-config --config <file> validate a config file (and the files it names), then exit
  bridge dev [--listen host:port] [--dir certs/dev]
                                      first run: create a dev PKI and config in --dir,
                                      then start on 127.0.0.1:9445 with the mock agent,
                                      and write the bridgectl profile "dev"
  bridge mcp --socket <path> --capability-file <file>
                                      the MCP server of a session's collaboration tools, run
                                      by its agent (stdio); the bridge gives its agents both
  bridge --version | --help

Options:
  -c, --config <file>   the configuration (see bridge.yaml)
  --listen host:port    dev: where to listen (else $BRIDGE_DEV_LISTEN, else 127.0.0.1:9445)
  --dir <dir>           dev: the dev PKI and config (else $BRIDGE_DEV_DIR, else certs/dev)
  --socket <path>       mcp: the daemon's tool socket
  --capability-file <f> mcp: the file holding the session's capability
  -h, --help            this help
  -v, --version         the version

Environment: BRIDGE_READY_FD=1 prints "BRIDGE_READY port=<port>" on stdout once serving;
BRIDGECTL_PROFILES, XDG_CONFIG_HOME: where dev writes the bridgectl profile file.

Signals: SIGTERM/SIGINT stop gracefully (sessions get their terminal event,
children are stopped within stop_grace_period); SIGHUP reloads TLS files.
Exit codes: 0 ok, 1 runtime failure, 2 usage or invalid configuration.`;

/** The command line as parseArgs reads it; throws on an unknown option. */
export const parseCommandLine = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      listen: { type: 'string' },
      dir: { type: 'string' },
      socket: { type: 'string' },
      'capability-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
