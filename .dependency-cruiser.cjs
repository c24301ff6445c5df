/**
 * The walls between Parley's folders (issue 29), checked by dependency-cruiser 17 in the test
 * command (test/architecture/dependencies.test.ts runs `depcruise src` with this file).
 *
 * Layers. Mechanisms shared by everything: platform/, store/, bus/, jobs/, storage/, stream/,
 * presence/, engines/, metrics/, processing/ and languages.ts. Features: one folder each, named
 * in FEATURES below. Above both, the composition: app.ts and composition/, schema.ts (tables and
 * migrations), asyncapi.ts, config.ts and config-docs.ts, main.ts, cli/, bootstrap/. The client (src/client) stands alone.
 *
 * A feature's public surface is its top-level modules other than its HTTP routes. Its subfolders
 * (tasks/speakers/, realtime/recording/, broadcasts/sinks/ ...), its route modules and its SQL
 * (`store.ts`, whose types other features may still name) are its own.
 *
 * Type-only imports count (tsPreCompilationDeps): a type names the module it comes from.
 */
const FEATURES = [
  'account',
  'billing',
  'broadcasts',
  'corrections',
  'glossary',
  'imports',
  'keys',
  'plans',
  'realtime',
  'retranslate',
  'search',
  'served-languages',
  'subtitles',
  'summaries',
  'summary-templates',
  'tasks',
  'tickets',
  'tts',
  'version',
  'web',
  'webhooks',
];
const FEATURE = `^src/(${FEATURES.join('|')})/`;
/** Implementations chosen by the composition root; everything else gets their interface. */
const CONCRETE_BACKENDS = [
  '^src/bus/(in-process|redis)\\.ts$',
  '^src/storage/(local-disk|s3)\\.ts$',
  '^src/jobs/(bull-queue|store-queue)\\.ts$',
  '^src/presence/(in-memory|redis)\\.ts$',
  '^src/platform/redis-rate-limit\\.ts$',
  '^src/engines/(builtin|neural|remote|host)/',
  '^node_modules/(ioredis|bullmq|pg|better-sqlite3|@aws-sdk)/',
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle anywhere: a cycle makes load order matter and hides which side owns what.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'mechanism-imports-feature',
      severity: 'error',
      comment: 'The store, the bus and the platform serve every feature and know none of them.',
      from: { path: '^src/(store|bus|platform|jobs|storage|stream|presence)/' },
      to: { path: FEATURE },
    },
    {
      name: 'mechanism-imports-composition',
      severity: 'error',
      comment: 'Mechanisms do not reach up to the composition (app.ts, composition/, config.ts, schema.ts, main.ts, cli/ ...).',
      from: { path: '^src/(store|bus|platform|jobs|storage|stream|presence|engines)/' },
      to: { path: '^src/(app|asyncapi|config|config-docs|schema|main)\\.ts$|^src/(cli|bootstrap|composition)/' },
    },
    {
      name: 'engine-imports-feature-http-or-store',
      severity: 'error',
      comment: 'Engines turn audio and text into results; they know no feature, no HTTP and no database.',
      from: { path: '^src/engines/' },
      to: {
        path: [FEATURE, '^src/(store|bus|jobs|stream|presence|metrics|processing)/', '^src/platform/http/', '^node_modules/(fastify|@fastify)/'],
      },
    },
    {
      name: 'feature-imports-feature-internals',
      severity: 'error',
      comment:
        "A feature uses another feature's top-level modules only: its subfolders and its HTTP routes are its own.",
      from: { path: '^src/([^/]+)/', pathNot: '^src/composition/' },
      to: {
        path: [`^src/(${FEATURES.join('|')})/[^/]+/`, `^src/(${FEATURES.join('|')})/[^/]*routes\\.ts$`],
        pathNot: ['^src/$1/'],
      },
    },
    {
      name: 'feature-uses-feature-sql',
      severity: 'error',
      comment: "Another feature's store.ts is its SQL: name its types, call it through that feature's service.",
      from: { path: '^src/([^/]+)/', pathNot: '^src/composition/' },
      to: { path: `^src/(${FEATURES.join('|')})/store\\.ts$`, pathNot: ['^src/$1/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'live-session-imports-audience',
      severity: 'error',
      comment:
        'The live session does not know its audiences (broadcasts, subtitles): they subscribe to its stream ' +
        '(the audiences port of realtime/ports.ts, wired by composition/realtime.ts).',
      from: { path: '^src/realtime/' },
      to: { path: '^src/(broadcasts|subtitles)/' },
    },
    {
      name: 'feature-imports-concrete-backend',
      severity: 'error',
      comment: 'Features get interfaces (EventBus, BlobStore, JobQueue, Presence ...); app.ts picks the implementation.',
      from: { path: FEATURE },
      to: { path: CONCRETE_BACKENDS },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/client/api-types\\.ts$' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
