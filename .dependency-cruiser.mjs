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
const WORKSPACE = ['^(packages|internal|cmd)/[^/]+/', '^tests/', '^bench/', '^@agent-bridge/'];

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

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'core-and-providers-no-transport',
      comment:
        'The core (internal/bridge) and the providers know nothing about gRPC or TLS: no ' +
        '@grpc/*, node:tls or @agent-bridge/proto. Their types are plain TypeScript; the server ' +
        'converts.',
      severity: 'error',
      from: { path: '^internal/(bridge|providers)/' },
      to: { path: TRANSPORT },
    },
    {
      name: 'core-imports-only-providers',
      comment:
        'Of our packages the core (internal/bridge) imports only providers: the Provider ' +
        'interface, event types and errors.',
      severity: 'error',
      from: { path: '^internal/bridge/' },
      to: { path: WORKSPACE, pathNot: ['^internal/bridge/', '^internal/providers/'] },
    },
    {
      name: 'internal-leaf-imports-no-workspace-package',
      comment:
        'config, pki, auth and providers (and any new internal package) import none of our ' +
        'other packages: each stands on its own. Only the core and the server depend on others.',
      severity: 'error',
      from: { path: '^internal/([^/]+)/', pathNot: '^internal/(bridge|server)/' },
      to: { path: WORKSPACE, pathNot: '^internal/$1/' },
    },
    {
      name: 'server-imports-daemon-parts-only',
      comment:
        'The server is the only part that meets both worlds: it imports proto, config, pki, ' +
        'auth, core and providers, but no entry point (cmd/*), test or benchmark.',
      severity: 'error',
      from: { path: '^internal/server/' },
      to: { path: WORKSPACE, pathNot: ['^internal/', '^packages/proto/'] },
    },
    {
      name: 'public-packages-not-internal',
      comment:
        'packages/* are published: they never import internal/*, cmd/*, tests or bench, so ' +
        'users of the generated code never pull in the daemon.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: ['^internal/', '^cmd/', '^tests/', '^bench/'] },
    },
    {
      name: 'no-private-of-another-package',
      comment:
        "src/private/ holds a package's internals: only modules of the same package import them. " +
        'Import what you need from the package name (its index.ts) instead.',
      severity: 'error',
      from: { path: '^((packages|internal|cmd)/[^/]+|tests|bench)/' },
      to: { path: '^(packages|internal|cmd)/[^/]+/src/private/', pathNot: '^$1/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles, within a package or between packages.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'Every import resolves (a workspace package that does not resolve would slip past the ' +
        'rules above). Add the package to the package.json of the importer, or fix the path.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
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
      extensions: ['.ts', '.mts', '.js', '.mjs', '.d.ts', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
