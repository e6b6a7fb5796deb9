// The import rules of ARCHITECTURE.md ("Who may import whom"), checked by
// `pnpm check:imports` (dependency-cruiser). Paths are relative to the
// repository root; workspace packages (`@agent-bridge/*`) resolve to their
// folders through the "development" export condition (src/index.ts), so an
// import by package name and one by relative path are judged alike. Type-only
// imports count: the rules are about what a part knows, not what it ships.

/**
 * Any of our workspace packages, as regexes on the resolved path. An import
 * of `@agent-bridge/x` that does not resolve (x is not in the importer's
 * package.json) keeps its name as path, hence the last alternative.
 */
const WORKSPACE = [
  '^(packages|internal|cmd)/[^/]+/',
  '^harness/',
  '^tests/',
  '^bench/',
  '^@agent-bridge/',
];

/**
 * What any part may use, like the standard library: lifetimes as scopes
 * (packages/scope), which depends on nothing.
 */
const SHARED = '^packages/scope/';

/** How tests wait (harness/waits): any test may use it, wherever it lives. */
const WAITS = '^harness/waits/';

/** A test, or a test double beside the code: what may use WAITS. */
const TEST_CODE = ['[.]test[.]ts$', '/src/testing/', '^tests/', '^bench/', '^harness/'];

/**
 * What the core and providers must not know: gRPC, TLS, and the generated
 * contract with its protobuf runtime. Resolved external packages live under
 * node_modules/.pnpm/ (hence no anchor); unresolved ones keep their name.
 */
const TRANSPORT = [
  '/node_modules/(@grpc/|grpc-health-check/|@bufbuild/)',
  '^(@grpc/|grpc-health-check$|@bufbuild/)',
  '^tls$',
  '^packages/proto/',
  '^@agent-bridge/proto$',
];

/**
 * A rule that fails the check: imports from `from` to `to` (dependency-cruiser
 * path conditions), explained by `comment`, which is printed with each hit.
 */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    forbid(
      'core-and-providers-no-transport',
      'The core (internal/bridge) and the providers know nothing about gRPC or TLS: no ' +
        '@grpc/*, node:tls or @agent-bridge/proto. Their types are plain TypeScript; the server ' +
        'converts.',
      { path: '^internal/(bridge|providers)/' },
      { path: TRANSPORT },
    ),
    forbid(
      'core-imports-only-providers',
      'Of our packages the core (internal/bridge) imports only providers: the Provider ' +
        'interface, event types and errors.',
      { path: '^internal/bridge/' },
      { path: WORKSPACE, pathNot: ['^internal/bridge/', '^internal/providers/', SHARED, WAITS] },
    ),
    forbid(
      'core-uses-the-provider-contract',
      'Of the providers the core uses only their contract face (@agent-bridge/providers: ' +
        'Provider, AgentHandle, SessionSpec, events, the permission vocabulary, errors), never ' +
        'the host face (@agent-bridge/providers/host: registry, spawner, watchdog) or a file ' +
        "behind either. Tests of the core may use the host face's helpers.",
      { path: '^internal/bridge/', pathNot: '[.]test[.]ts$' },
      { path: '^internal/providers/', pathNot: '^internal/providers/src/index[.]ts$' },
    ),
    forbid(
      'internal-leaf-imports-no-workspace-package',
      'config, pki, auth and providers (and any new internal package) import none of our ' +
        'other packages: each stands on its own. Only the core and the server depend on others.',
      { path: '^internal/([^/]+)/', pathNot: '^internal/(bridge|server|store|fleet)/' },
      { path: WORKSPACE, pathNot: ['^internal/$1/', SHARED, WAITS] },
    ),
    forbid(
      'store-imports-the-core-only',
      "The session store (internal/store) implements the core's SessionStore seam: it imports " +
        'the core and nothing else of ours; the core never imports it (cmd/bridge plugs it in).',
      { path: '^internal/store/' },
      { path: WORKSPACE, pathNot: ['^internal/(store|bridge)/', SHARED, WAITS] },
    ),
    forbid(
      'fleet-joins-the-core-and-jetstream',
      "A daemon's part in its fleet (internal/fleet) puts the core's seams (SessionStore, " +
        'SessionsElsewhere) on NATS JetStream (internal/jetstream): it imports those two and ' +
        'nothing else of ours; neither imports it (cmd/bridge plugs it in).',
      { path: '^internal/fleet/' },
      { path: WORKSPACE, pathNot: ['^internal/(fleet|bridge|jetstream)/', SHARED, WAITS] },
    ),
    forbid(
      'server-imports-daemon-parts-only',
      'The server is the only part that meets both worlds: it imports proto, config, pki, ' +
        'auth, core and providers, but no entry point (cmd/*), test or benchmark.',
      { path: '^internal/server/' },
      { path: WORKSPACE, pathNot: ['^internal/', '^packages/proto/', SHARED, WAITS] },
    ),
    forbid(
      'bridgectl-uses-the-public-sdk',
      'bridgectl is a client like any control plane: of our packages it imports only the SDK ' +
        '(packages/bridgeclient), the contract (packages/proto) and the command layer it ' +
        'shares with bridge-ca (internal/cli, which imports none of ours). Nothing of the daemon.',
      { path: '^cmd/bridgectl/' },
      {
        path: WORKSPACE,
        pathNot: [
          '^cmd/bridgectl/',
          '^packages/(bridgeclient|proto)/',
          '^internal/cli/',
          SHARED,
          WAITS,
        ],
      },
    ),
    forbid(
      'console-page-is-browser-code',
      "bridgectl's web console page runs in the browser and talks only to the console's own " +
        'server: it imports Preact, its signals, its own files and the turn summary it shares with ' +
        "bridgectl's terminal rendering (plain code), never Node or our packages " +
        '(the SDK, with its credentials, stays in the console server).',
      { path: '^cmd/bridgectl/console/' },
      {
        pathNot: [
          '^cmd/bridgectl/console/',
          '^cmd/bridgectl/src/turn-summary[.]ts$',
          'node_modules/(preact|@preact/signals)',
        ],
      },
    ),
    forbid(
      'public-packages-not-internal',
      'packages/* are published: they never import internal/*, cmd/*, tests or bench, so ' +
        'users of the generated code never pull in the daemon.',
      { path: '^packages/' },
      { path: ['^internal/', '^cmd/', '^tests/', '^bench/'] },
    ),
    forbid(
      'only-the-face-of-another-package',
      "A package is used through its face: src/index.ts (and the providers' host face, " +
        "src/host.ts, and the SDK's NATS discovery, src/nats-discovery.ts), what its package.json " +
        'exports. Everything else under src/ (its rooms, ' +
        'src/private/, test doubles) is its own: only modules of the same package import it. ' +
        'Import what you need from the package name instead.',
      { path: '^((packages|internal|cmd)/[^/]+|harness|tests|bench|examples)/' },
      {
        path: '^(packages|internal|cmd)/[^/]+/src/',
        pathNot: [
          '^$1/',
          '^(packages|internal|cmd)/[^/]+/src/(index|host)[.]ts$',
          '^packages/bridgeclient/src/nats-discovery[.]ts$',
        ],
      },
    ),
    forbid(
      'examples-use-the-public-sdk',
      'The examples are control planes as a user writes them: of our packages they import ' +
        'only the published SDK (and what it re-exports).',
      { path: '^examples/' },
      { path: WORKSPACE, pathNot: ['^packages/(bridgeclient|proto|scope)/'] },
    ),
    forbid(
      'waits-only-in-tests',
      'harness/waits is how tests wait: tests and test doubles may import it, code that ships ' +
        'may not.',
      { pathNot: TEST_CODE },
      { path: WAITS },
    ),
    forbid(
      'harness-only-for-tests-and-bench',
      'The real-daemon harness (harness/) serves the tests and the benchmarks; nothing that ' +
        'ships imports it.',
      { pathNot: ['^tests/', '^bench/', '^harness/'] },
      { path: '^harness/src/' },
    ),
    forbid(
      'bench-not-tests',
      'The benchmarks share the harness with the tests (harness/), never the tests themselves.',
      { path: '^bench/' },
      { path: '^tests/' },
    ),
    forbid(
      'no-circular',
      'No import cycles, within a package or between packages.',
      {},
      { circular: true },
    ),
    forbid(
      'not-to-unresolvable',
      'Every import resolves (a workspace package that does not resolve would slip past the ' +
        'rules above). Add the package to the package.json of the importer, or fix the path.',
      {},
      { couldNotResolve: true },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: {
      path: ['(^|/)dist/', '^tests/contract/(clis|\\.cache)/'],
    },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['development', 'import', 'node', 'default', 'types'],
      mainFields: ['main', 'types'],
      extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs', '.d.ts', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
