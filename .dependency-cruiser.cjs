/**
 * The layers of the server, checked by `npm run lint` (dependency-cruiser). Each folder of src/ has a
 * place in LAYERS, lowest first; a file may import only from its own folder and from folders listed
 * before it. That rules out imports that run upward and cycles between folders (a loop needs an
 * upward step). Inside a folder, data sits below services, and services below controllers and queue
 * processors (the KIND rules). docs/architecture.md explains what each folder owns.
 */
const LAYERS = [
  // Infrastructure: imports no domain folder.
  'config',
  'common',
  'logger.ts',
  'database',
  // How errors become HTTP answers: the one filter, which knows the database's errors.
  'http',
  'redis',
  'mail',
  'jobs',
  // Where files are kept (PostgreSQL or S3-compatible storage).
  'storage',
  // Who may do what: imports no domain folder either.
  'access',
  // The domain, from the rows most others build on to the features that combine them.
  'audit',
  'projects',
  'users',
  'tokens',
  'members',
  'releases',
  'search',
  'events',
  'attachments',
  'artifacts',
  'symbolication',
  'rollups',
  'outcomes',
  'issues',
  'feedback',
  // What a project may send: quotas, spike protection, the rate limits of events and categories.
  'limits',
  // Data protection: scrubbing secrets, inbound filters, erasing a person's data.
  'privacy',
  // Monitors, one domain in layers of its own: the threshold state machine and the issues its
  // steps open (incidents), its two sources of checks (cron check-ins and schedules, HTTP checks),
  // and the status pages that show both.
  'monitors/incidents',
  'monitors/crons',
  'monitors/uptime',
  'monitors/status-page',
  'channels',
  'rules',
  'alerts',
  // The schema: every entity and migration, for the data source.
  'schema',
  // Entry points: queue consumers, HTTP surfaces, the process.
  'digest',
  'retention',
  'health',
  'ingest',
  'sentry-api',
  'auth',
  'web',
  'cli',
  // The process.
  'app.module.ts',
  // The OpenAPI document of the app's routes, and the script that writes it.
  'openapi',
  'http-app.ts',
  'main.ts',
];

const escape = (name) => name.replace(/[.]/g, '\\.');
/** The path of a layer: a folder of src/, or a file directly in src/. */
const layerPath = (name) => (name.endsWith('.ts') ? `^src/${escape(name)}$` : `^src/${escape(name)}/`);

const upwardRules = LAYERS.slice(0, -1).map((name, index) => ({
  name: `layer-${name}`,
  comment: `${name} may import only from itself and from the layers below it (see LAYERS).`,
  severity: 'error',
  from: { path: layerPath(name), pathNot: '\\.spec\\.ts$' },
  to: { path: LAYERS.slice(index + 1).map(layerPath) },
}));

/** What each kind of file may not import, inside a folder as across folders. */
const DATA = '(\\.repository|\\.entity|-data\\.module)\\.ts$';
const SERVICE = '\\.service\\.ts$';
const ENTRY = '(\\.controller|\\.processor)\\.ts$';

module.exports = {
  forbidden: [
    ...upwardRules,
    {
      name: 'unplaced-folder',
      comment: 'Every folder and top-level file of src/ has a place in LAYERS.',
      severity: 'error',
      from: { path: '^src/', pathNot: [...LAYERS.map(layerPath), '\\.spec\\.ts$'] },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'No import cycles between files.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'data-below-services',
      comment: 'Repositories, entities and data modules do not reach up to services or entry points.',
      severity: 'error',
      from: { path: DATA },
      to: { path: [SERVICE, ENTRY] },
    },
    {
      name: 'services-below-entry-points',
      comment: 'Services do not reach up to controllers or queue processors.',
      severity: 'error',
      from: { path: SERVICE },
      to: { path: ENTRY },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    moduleSystems: ['es6', 'cjs'],
  },
};
