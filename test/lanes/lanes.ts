// The suite's lanes: every test file is in exactly one (test/lanes/lanes.test.ts checks it), and a
// lane names the binaries it needs, so that `npm run test:<lane>` provisions only those and
// `npm test` starts each lane as soon as its binaries are ready. Times: CONTRIBUTING.md.
import type { ProvisionPart } from '../../src/provision/parts';

/** One lane of the suite. */
export interface Lane {
  /** `npm run test:<name>`. */
  name: string;
  /** What it covers, for `--help` and CONTRIBUTING.md. */
  summary: string;
  /** The provisioned binaries its tests start (`npm run provision -- <part>`). */
  needs: ProvisionPart[];
  /** Its test files, relative to the repository root. */
  files: string[];
  /** Mocha processes that share its files, side by side (default 1). */
  shards?: number;
}

const inFolder = (folder: string, names: string[]) => names.map((name) => `test/${folder}/${name}.test.ts`);

/**
 * The lanes, in the order `npm test` starts them when two are ready at once: the longest first, so
 * that the lanes running side by side end close together.
 */
export const lanes: Lane[] = [
  {
    name: 'unit',
    summary: 'no Temporal server and nothing provisioned: schemas, config, formatting, activities against loopback SMTP, HTTP and SQLite, bundles and replays',
    needs: [],
    shards: 2,
    files: [
      ...inFolder('activities', ['email', 'payments', 'reports', 'smtp-errors', 'smtp-tls', 'sync-source']),
      ...inFolder('activity-kit', ['attempt-logs', 'breaker-gate', 'job-attempt', 'hand-off-batcher', 'ledger', 'retry-after']),
      ...inFolder('app', ['worker']),
      ...inFolder('bench', ['profile-summary', 'report']),
      ...inFolder('catalog', ['breaker-admission', 'breaker-state', 'catalog', 'dependency-plan', 'failure-fingerprint', 'fairness', 'sensitive', 'start-compat', 'unknown-keys']),
      ...inFolder('client', ['closed-state-read', 'codec-server', 'dead-letter-bulk', 'dead-letter-calls', 'dead-letter-history', 'format', 'job-list', 'redrive-plan', 'validate']),
      ...inFolder('jobctl', ['cli-breakers', 'cli-help', 'cli-windows', 'http-api-subset', 'progress']),
      ...inFolder('cluster', ['config']),
      ...inFolder('console', ['hosts', 'job-filters']),
      ...inFolder('db', ['database-errors', 'database']),
      ...inFolder('outbox', ['outbox']),
      ...inFolder('deploy', ['docker-compose', 'dockerfile', 'layering', 'workflow-lint']),
      ...inFolder('docs', ['links', 'reference']),
      ...inFolder('jobs', ['catalog', 'task-queues']),
      ...inFolder('lanes', ['lanes']),
      ...inFolder('package', ['entry-points']),
      ...inFolder('provision', ['heartbeat', 'parts']),
      ...inFolder('shared', ['attempts', 'config', 'encryption-codec', 'ensure-search-attributes', 'project-modules', 'retry', 'stall']),
      ...inFolder('worker', ['bundle-check', 'check-workflows', 'library-activities', 'logger', 'orphan-watch', 'sandbox-timeout', 'tracing']),
      ...inFolder('workflow-kit', ['bundle-imports', 'closed-state', 'replay-tracing']),
      ...inFolder('workflows', ['replay']),
    ],
  },
  {
    name: 'integration',
    summary: 'real worker processes and jobctl on a dev server: pause, circuit breakers, fairness, limits, shutdown, signals, rolling deploys, metrics and the dashboard through Prometheus, the client',
    needs: ['cli', 'test-server'],
    files: [
      ...inFolder('client', ['enqueue-many', 'enqueue', 'fuzz', 'history', 'job-record', 'priority', 'schedules']),
      ...inFolder('jobctl', ['cli-status', 'http-enqueue', 'http-reads']),
      ...inFolder('console', ['jobctl-console']),
      ...inFolder('dev', ['dev-server-start']),
      ...inFolder('integration', [
        'breaker',
        'breaker-stalled-worker',
        'bring-your-own-temporal',
        'cancellation',
        'concurrency-limit',
        'dashboard-queries',
        'dlq-bulk-interrupt',
        'dlq-without-workers',
        'email-once',
        'fairness',
        'flow-control-check',
        'metrics',
        'outbox',
        'own-queues',
        'pause',
        'queue-pollers',
        'rolling-deploy',
        'shutdown',
        'start-signals',
        'windows',
      ]),
    ],
  },
  {
    name: 'workflows',
    summary: 'each job type’s workflow with real workers on the time-skipping server (the dev server where its timers matter): retries, compensation, the DLQ, debounce, dedupe, limits, the test kit',
    needs: ['cli', 'test-server'],
    files: [
      ...inFolder('activities', ['payments-outage']),
      ...inFolder('activity-kit', ['disk-full', 'interceptors']),
      ...inFolder('shared', ['redaction']),
      ...inFolder('testing', ['kit-logs', 'kit']),
      ...inFolder('worker', ['create-worker']),
      ...inFolder('workflow-kit', ['breaker', 'concurrency-limiter', 'config-wait', 'dead-letter-capacity', 'dead-letter', 'debounce', 'dedupe', 'history-size', 'library-activity-names', 'lifecycle-logs', 'run-local']),
      ...inFolder('workflows', ['generate-report', 'noop', 'process-payment', 'send-email', 'sync-data']),
    ],
  },
  {
    name: 'browser',
    summary: 'the console and the Temporal Web UI in real Chromium (playwright-core), over a dev server',
    needs: ['cli', 'test-server'],
    files: [
      ...inFolder('console', ['accessibility', 'dead-letter-tasks', 'dead-letters', 'jobs', 'overview', 'rebinding', 'redrive-preview', 'schedules', 'security', 'sensitive-fields', 'triage']),
      ...inFolder('integration', ['dev-server', 'encryption']),
    ],
  },
  {
    name: 'tracing',
    summary: 'spans exported to a real Jaeger and read back: the worker, jobctl and the sync job',
    needs: ['cli', 'test-server', 'jaeger'],
    files: [...inFolder('jobctl', ['cli-tracing']), ...inFolder('integration', ['tracing-sync', 'tracing'])],
  },
  {
    name: 'package',
    summary: 'the packed tarball: its contents, a team’s own project built from it against a bare Temporal, the bench',
    needs: ['cli'],
    files: [...inFolder('bench', ['bench']), ...inFolder('deploy', ['package']), ...inFolder('package', ['external-project', 'lean-install', 'workflow-entry']), ...inFolder('provision', ['routes'])],
  },
  {
    name: 'cluster',
    summary: 'the PostgreSQL-backed cluster (npm run cluster): faults, a cut network, namespace creation, the shipped Prometheus config',
    needs: ['cli', 'server', 'ui'],
    files: [...inFolder('cluster', ['faults', 'network']), ...inFolder('deploy', ['create-namespace', 'prometheus-config'])],
  },
  {
    name: 'soak',
    summary: 'small versions of the soaks (npm run soak, soak:dlq, soak:dlq:cluster and soak:outbox for the full size): load through the cluster, DLQ storms on the dev server and the cluster, the job outbox under load',
    needs: ['cli', 'test-server', 'server', 'ui'],
    files: [...inFolder('cluster', ['soak', 'dlq-storm']), ...inFolder('integration', ['dlq-storm', 'outbox-relays'])],
  },
];

/**
 * The folders of test/ that test no one folder of src/ (every other folder of test/ is named after
 * the folder of src/ it tests): test/lanes/lanes.test.ts holds the tree to this.
 */
export const suiteFolders: Record<string, string> = {
  integration: 'several folders together: real worker processes, jobctl and the console on a dev server',
  deploy: 'what ships beside the code: the import rules, docker-compose, the Dockerfile, the package, the cluster scripts',
  docs: 'the docs: links, and the reference pages checked against the code',
  package: 'the packed tarball, its entry points, a team’s project built from it',
  bench: 'npm run bench (bench/)',
  lanes: 'the lanes themselves (this folder)',
  helpers: 'code the tests share',
  fixtures: 'recorded histories and the outside project the tests use',
};
