/**
 * Import boundaries of the Tradewind monorepo (issue 23; docs/style.md §1 and §14).
 * Checked by scripts/test/boundaries.test.ts with dependency-cruiser over services, packages, web
 * and scripts.
 *
 * Rules in force (all severity "error"):
 * - no-service-to-other-service: a service's runtime code (services/<svc>/src, tests excluded) imports
 *   only its own files, @tradewind/lib (the runtime), @tradewind/contracts (packages/contracts: what
 *   the services and the web app agree on) and npm packages; never another service, another
 *   package, web/, scripts/ or dev/.
 * - no-dev-in-production: no production code (services/<svc>/src, web/src, web/server; tests
 *   excluded) imports @tradewind/dev (dev/: the local stand-ins and test helpers), so no image
 *   carries them.
 * - no-deep-import-into-service: code outside services/<svc>/ (or packages/<pkg>/) reaches it only by its package
 *   name (`@tradewind/<svc>`, resolved through the package "exports"), never by a relative path such
 *   as `../services/<svc>/src/...`. Exception: the test-support files listed in TEST_SUPPORT.
 * - no-test-support-in-bench: a bench (scripts/bench) imports no workspace's test/ files, not even those
 *   in TEST_SUPPORT; what a bench shares with tests lives in @tradewind/dev (e.g. `@tradewind/dev/peer-input`).
 * - web-only-allowed-packages: web/src (browser code) imports, from the monorepo, only its own files,
 *   the browser-safe subpaths of @tradewind/contracts (the trade-message JSON Schemas among them, as
 *   `?raw` text), @tradewind/client and examples/ (as `?raw` text).
 * - web-server-only-allowed-packages: web/server (Node) imports, from the monorepo, only its own
 *   files, web/src, @tradewind/lib and @tradewind/contracts (any entry) and @tradewind/client; its
 *   tests also @tradewind/dev.
 * - not-to-unresolvable: every import resolves (one listed exception, a `?raw` import of an exact
 *   package export that Vite resolves and dependency-cruiser cannot).
 * - no-circular: no import cycles between modules (type-only imports included).
 *
 * ALLOW_LIST holds the violations that exist today and are not fixed yet: each has its reason and
 * is to be removed. Everything new is checked.
 */

/**
 * Test-support files of a service that other workspaces' tests and the reliability scripts may import by
 * relative path (they are not part of a service's package entry, and moving them is a separate change).
 * Benches may not (no-test-support-in-bench).
 */
const TEST_SUPPORT = [
  // Starts NATS, Redis and a ws-fanout app; used by packages/client's integration tests.
  '^services/ws-fanout/test/support[.]ts$',
  // A Yellowstone (Geyser) gRPC stand-in; used by the chaos stream runs.
  '^services/ingest/test/support/geyser-server[.]ts$',
  // A Solana RPC node stand-in (HTTP JSON-RPC + PubSub WebSocket); used by the chaos stream runs
  // (scripts/reliability/chaos/stream.ts: the live RPC source killed and resumed).
  '^services/ingest/test/support/solana-rpc-server[.]ts$',
  // Start billing (with the local Stripe) and auth in-process; used by the fuzz suite (scripts/reliability/fuzz).
  '^services/billing/test/support[.]ts$',
  '^services/auth/test/support[.]ts$',
];

/**
 * Existing violations, each to be removed, with its reason. `from`/`to` are path regexes
 * (repository-relative); `from` has no capture groups.
 */
const ALLOW_LIST_ENTRIES = [
  {
    rule: 'no-test-support-in-bench',
    from: '^scripts/bench/slots[.]ts$',
    to: '^services/ws-fanout/test/support[.]ts$',
    reason:
      "`npm run bench -- slots` starts ws-fanout with the tests' startTestApp (their config, e.g. WS_AUTH_TIMEOUT_MS 1500, not config.ts's defaults). Moving it to @tradewind/ws-fanout's exports or @tradewind/dev changes what the bench measures, so it is a change of its own.",
  },
];

/**
 * The allow-list in force: empty when BOUNDARIES_NO_ALLOW_LIST=1, which scripts/test/boundaries.test.ts
 * uses to check that every entry still matches a real violation (a fixed one must be removed).
 */
const ALLOW_LIST = process.env.BOUNDARIES_NO_ALLOW_LIST === '1' ? [] : ALLOW_LIST_ENTRIES;

/** Subpaths of @tradewind/contracts that are safe in a browser bundle (no node: imports), and its JSON Schemas. */
const CONTRACTS_BROWSER_SAFE =
  '^packages/contracts/(src/(plans|subjects|notifications|session-client|errors|ws-errors|usage)[.]ts|schemas/[^/]+[.]schema[.]json)$';

/**
 * @tradewind/client resolves to its built dist/ (the published package's exports map), which a fresh
 * clone has only after packages/client/test/examples.int.test.ts builds it, possibly while this cruise
 * runs. Until then the examples' import of it by name cannot resolve; that test compiles and runs
 * the examples against the built package, so the import is checked there.
 */
const CLIENT_UNBUILT = require('node:fs').existsSync(require('node:path').join(__dirname, 'packages/client/dist/index.js')) ? [] : ['^@tradewind/client$'];

/** The ALLOW_LIST entries of one rule. */
function allowed(rule) {
  return ALLOW_LIST.filter((a) => a.rule === rule);
}

/** Splits a rule so that the (from, to) pairs in ALLOW_LIST are exempt and nothing else is. */
function withAllowList(rule) {
  const entries = allowed(rule.name);
  if (entries.length === 0) return [rule];
  // dependency-cruiser cannot express "(from A and to B) is allowed" in one rule, so the rule is split:
  // sources not in the allow-list get the full rule; each allow-listed source gets the rule minus
  // its allowed targets.
  const fromPaths = entries.map((e) => e.from);
  const out = [{ ...rule, from: { ...rule.from, pathNot: [...toArray(rule.from.pathNot), ...fromPaths] } }];
  for (const e of entries) {
    out.push({
      ...rule,
      // Lookahead: the source matches both the allow-list entry and the rule's own `from.path`, whose
      // capture groups ($1 in `to`) keep their numbers (allow-list `from`s have no capture groups).
      from: { ...rule.from, path: `(?=${e.from})${rule.from.path}` },
      to: { ...rule.to, pathNot: [...toArray(rule.to.pathNot), e.to] },
    });
  }
  return out;
}

function toArray(v) {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** @type {import('dependency-cruiser').IConfiguration} */
const config = {
  forbidden: [
    {
      name: 'no-service-to-other-service',
      severity: 'error',
      comment:
        'A service imports only its own files, @tradewind/lib, @tradewind/contracts and npm packages (docs/style.md §1). Share runtime code through @tradewind/lib and contracts through @tradewind/contracts.',
      from: { path: '^services/([^/]+)/src/', pathNot: '[.]test[.]tsx?$' },
      to: { path: '^(services|packages|web|scripts|dev)/', pathNot: ['^services/$1/', '^services/lib/', '^packages/contracts/'] },
    },
    {
      name: 'no-dev-in-production',
      severity: 'error',
      comment:
        'Production code never imports @tradewind/dev (the local stand-ins and test helpers): no service dependency or image holds it (docs/architecture.md §2).',
      from: { path: '^(services/[^/]+/src|web/src|web/server)/', pathNot: '[.]test[.]tsx?$' },
      to: { path: '^dev/' },
    },
    ...withAllowList({
      name: 'no-deep-import-into-service',
      severity: 'error',
      comment: 'Outside services/<svc>/ (packages/<pkg>/), import it by its package name (@tradewind/<svc>), never by a relative path into its files.',
      from: { path: '^(services/[^/]+|packages/[^/]+|web|scripts|dev)/' },
      to: {
        path: '^(services|packages|dev)/',
        pathNot: ['^$1/', ...TEST_SUPPORT],
        dependencyTypesNot: ['aliased-workspace'],
      },
    }),
    ...withAllowList({
      name: 'no-test-support-in-bench',
      severity: 'error',
      comment:
        "A bench (scripts/bench) measures what production runs, with the development helpers of @tradewind/dev; it never imports another workspace's test/ files (TEST_SUPPORT does not apply), which change whenever a test needs them. Move what a bench needs into @tradewind/dev (or the package's exports), for the bench and the tests alike.",
      from: { path: '^scripts/bench/' },
      to: { path: '^(services/[^/]+|packages/[^/]+|dev|web)/test/' },
    }),
    {
      name: 'web-only-allowed-packages',
      severity: 'error',
      comment:
        'web/src imports only its own files, the browser-safe subpaths of @tradewind/contracts (with its JSON Schemas as text), @tradewind/client, and examples/ as text.',
      from: { path: '^web/src/' },
      to: {
        path: '^(services|packages|scripts|examples|proto|deploy|charts|dev)/',
        pathNot: [
          CONTRACTS_BROWSER_SAFE,
          '^packages/client/',
          // The starter templates' sources, bundled as text (`?raw`) so the docs show exactly what
          // the templates run; they are never executed by the web app.
          '^examples/',
        ],
      },
    },
    ...withAllowList({
      name: 'web-server-only-allowed-packages',
      severity: 'error',
      comment: 'web/server (Node) imports only its own files, web/src, @tradewind/lib, @tradewind/contracts and @tradewind/client.',
      from: { path: '^web/server/' },
      to: {
        path: '^(services|packages|scripts|examples|proto|deploy|charts|dev)/',
        // Its tests may use the test helpers and stand-ins (no-dev-in-production keeps them out of the server).
        pathNot: ['^services/lib/src/', '^packages/(client|contracts)/', '^dev/'],
      },
    }),
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'Every import resolves; an unresolved one would escape the rules above. Exception: an exact (non-pattern) package export with a Vite `?raw` query, which Vite resolves after stripping the query but dependency-cruiser (enhanced-resolve) does not.',
      from: {},
      to: { couldNotResolve: true, pathNot: ['^@tradewind/client/package[.]json[?]raw$', ...CLIENT_UNBUILT] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make load order matter and modules impossible to test alone.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['(^|/)node_modules/', '(^|/)dist/', '[.]d[.]ts$'] },
    tsPreCompilationDeps: true,
    // Read the dependencies of every package.json up the tree, so that a workspace package imported
    // by name from services/<svc>/ is typed 'aliased-workspace' (without it: 'undetermined').
    combinedDependencies: true,
    preserveSymlinks: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: {},
  },
};

// Not part of dependency-cruiser's configuration (non-enumerable, so its schema check ignores it):
// the allow-list, for scripts/test/boundaries.test.ts.
Object.defineProperty(config, 'allowList', { value: ALLOW_LIST_ENTRIES, enumerable: false });
module.exports = config;
