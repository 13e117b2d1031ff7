// The layering rules of durable-jobs, checked by `npm run lint` (dependency-cruiser). The folders
// are in layers (folderLayers below): the library bottom up, src/shared ← src/catalog, src/db ←
// src/activity ← src/workflow ← src/client ← src/console ← src/worker ← src/testing, jobctl; then
// the dev tooling (src/dev: npm start); the built-in app (src/jobs with its database,
// src/activities, src/workflows, src/app: its worker) sits on top, written against the library
// like a user's app would be. The workflow sandbox rules a user can reuse (no Node built-ins, no process, no
// setTimeout) stay ESLint's (src/workflow-kit/lint-rules.ts); the layer rules live here, and
// test/deploy/layering.test.ts shows each one firing.

/** The library itself: it knows job types only through the catalog it is given. */
const core = '^src/(catalog|deprecated|workflow-kit|activity-kit|client|worker|shared|testing|db|provision|jobctl|dev)/';

/** The built-in catalog: the five job types, their workflows, activities, settings and tables (src/jobs/database). */
const builtIns = '^src/(jobs|workflows|activities|app)/';

/**
 * Code that runs in the workflow sandbox: the SDK bundles it and evaluates its imports again for
 * every job, so it stays deterministic and cheap to load (docs/performance.md).
 */
const workflowCode = [
  '^src/workflows/',
  '^src/workflow-kit/',
  '^src/deprecated/job[.]ts$',
  '^src/catalog/(define-job|dead-letter|task-queues|job-type-attribute)[.]ts$',
  // The job definitions and the plain data they share; not the catalog, worker and settings modules
  // that gather the schemas and activities, nor payloads/ (zod) and database/ (Kysely).
  '^src/jobs/(?!(catalog|worker|settings)[.]ts$)[^/]+[.]ts$',
];

/** Modules that workflow code imports as types only: zod and fflate, and the modules that carry zod. */
const heavyModules = [
  '(^|/)node_modules/(zod|fflate)/',
  '^src/jobs/payloads/',
  '^src/jobs/(catalog|settings)[.]ts$',
  '^src/app/',
  '^src/jobs/database/',
  '^src/catalog/(catalog|validate|prepare-job)[.]ts$',
  '^src/shared/limits[.]ts$',
];

/**
 * The folders of src/ (and bench/) in layers, bottom up: a folder imports only folders of lower
 * layers, so no two folders import each other, directly or round a loop. A new folder goes into a
 * layer here (folder-in-a-layer fails until it does).
 */
const folderLayers = [
  ['shared'],
  ['catalog', 'db', 'provision'],
  ['activity-kit', 'outbox'],
  ['workflow-kit'],
  ['client'],
  ['console'],
  ['worker'],
  ['testing', 'jobctl', 'deprecated'],
  ['dev'],
  // The built-in app, written against the library as a user's would be.
  ['jobs'],
  ['activities'],
  ['workflows', 'app'],
  // Its tooling: npm run cluster, npm run bench.
  ['cluster', 'bench'],
];
const folderPath = (folder) => (folder === 'bench' ? '^bench/' : `^src/${folder}/`);
const folderRules = folderLayers.flatMap((layer, i) =>
  layer.map((folder) => ({
    name: 'folder-layers',
    severity: 'error',
    comment: `${folder}/ imports only folders of the layers below its own (folderLayers): an import across or up the layers is how two folders come to import each other. Move the shared part down.`,
    from: { path: folderPath(folder) },
    to: { path: folderLayers.slice(i).flat().filter((other) => other !== folder).map(folderPath) },
  })),
);

module.exports = {
  forbidden: [
    ...folderRules,
    {
      name: 'folder-in-a-layer',
      severity: 'error',
      comment: 'Every folder of src/ has a place in folderLayers, so that the layers cover the whole tree.',
      from: { path: '^src/[^/]+/', pathNot: folderLayers.flat().filter((f) => f !== 'bench').map(folderPath) },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A module cycle, type-only ones included, means two modules are one concept split in two or a layer points the wrong way (STYLE.md 16): move the shared part down a layer.',
      from: { path: '^(src|bench)/' },
      to: { circular: true },
    },
    {
      name: 'core-not-to-built-ins',
      severity: 'error',
      comment:
        'The core (client, worker, CLI, DLQ, interceptors, ledger, test kit, provisioning) knows job types only through the catalog it is given; the built-in catalog is one catalog among others (STYLE.md 1). ' +
        'src/worker/start.ts and main.ts load the built-in catalog and worker through package.json ("durable-jobs".catalog/worker), never by import. ' +
        'src/cluster (npm run cluster) and bench/ (npm run bench) are the built-in app\'s tooling, not core: the cluster hands the built-in settings (OUTBOX_DIR, REPORTS_DIR) to the worker processes it runs, and the bench\'s eager worker runs the built-in catalog, so both may import built-ins (see core-not-to-app-tooling).',
      from: { path: core },
      to: { path: builtIns },
    },
    {
      name: 'built-ins-through-public-entry-points',
      severity: 'error',
      comment:
        'The built-in job types, and the bench\'s user-defined one (bench/activity), use exactly the public API a user has: the package entry points (durable-jobs = src/client/index.ts, /catalog, /job, /workflow, /activity, /worker, /testing), never a library module behind them. ' +
        'Import what is missing from an entry point, and export it there if a user would need it too.',
      from: { path: [builtIns, '^bench/activity/'] },
      to: { path: core, pathNot: '^src/(client|catalog|workflow-kit|activity-kit|worker|testing)/index[.]ts$' },
    },
    {
      name: 'core-not-to-app-tooling',
      severity: 'error',
      comment:
        'src/cluster and bench/ may import the built-in catalog because they are its tooling; nothing else in src may import them, or the built-ins would reach the core through them.',
      from: { path: '^src/', pathNot: '^src/cluster/' },
      to: { path: ['^src/cluster/', '^bench/'] },
    },
    {
      name: 'activities-not-to-client',
      severity: 'error',
      comment:
        'Activities run inside the worker; the client (JobClient, jobctl) sits above them. An activity that needs a client capability gets it from a lower layer (src/catalog, src/shared) or through its deps.',
      from: { path: '^src/(activity-kit|activities)/' },
      to: { path: '^src/client/' },
    },
    {
      name: 'shared-is-the-bottom-layer',
      severity: 'error',
      comment:
        'src/shared (config, errors, retry shapes, codecs) is the bottom layer: every other layer imports it, so it imports none of them, or a cycle of layers follows.',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'workflow-code-not-to-process-modules',
      severity: 'error',
      comment:
        'Workflow code runs in the deterministic sandbox: the client, the worker and the test kit are process-level modules (connections, files, timers) it must never load.',
      from: { path: workflowCode },
      to: { path: ['^src/(client|worker|testing|provision|cluster|db)/', '^src/shared/(config|temporal-connection|dev-server-config|net|wait-for-frontend|project-modules)[.]ts$'] },
    },
    {
      name: 'workflow-code-activities-as-types',
      severity: 'error',
      comment:
        'Workflow code calls activities through proxyActivities, so it imports them as types only; their implementations (database, SMTP, files) must not enter the workflow bundle.',
      from: { path: workflowCode },
      to: { path: '^src/(activity-kit|activities)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-code-no-eager-heavy-modules',
      severity: 'error',
      comment:
        'The SDK evaluates every module workflow code imports again for each job: zod (and the payload schemas, the catalog, the validation that carry it) is imported as a type only, and fflate is loaded on first use through src/workflow-kit/lazy-modules.ts alone (docs/performance.md).',
      from: { path: workflowCode, pathNot: '^src/workflow-kit/lazy-modules[.]ts$' },
      to: { path: heavyModules, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-lazy-modules-fflate-only',
      severity: 'error',
      comment: 'src/workflow-kit/lazy-modules.ts loads fflate on first use, and nothing else of that list: zod and the schemas never enter workflow code, lazily or not.',
      from: { path: '^src/workflow-kit/lazy-modules[.]ts$' },
      to: { path: heavyModules, pathNot: '(^|/)node_modules/fflate/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-code-no-node-built-ins',
      severity: 'error',
      comment: 'Workflow code must stay deterministic and run in the sandbox, which has no Node built-ins (fs, crypto, timers, …).',
      from: { path: workflowCode },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve is a typo or a missing dependency; tsc would say so too, but a rule that cannot see a module cannot check it.',
      from: { path: '^(src|bench)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    // Type-only imports count: a type-only cycle is still a cycle, and the workflow rules tell
    // type-only imports (allowed) from value imports (bundled).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    moduleSystems: ['cjs', 'es6'],
  },
};
