import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { clusterMembers } from '../../src/cluster/membership';
import { freePortOn } from '../../src/cluster/ports';
import { run } from '../../src/provision/routes';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { versions } from '../../src/provision/versions';
import { loadConfig } from '../../src/shared/config';
import { planLoad, prepareLoad, runLoad, untilSettled, type RunningLoad } from '../helpers/cluster-load';
import { startClusterTestEnv, type ClusterTestEnv } from '../helpers/cluster';
import { waitFor } from '../helpers/dlq';
import { repoRoot, uniqueId } from '../helpers/env';
import { runCommand } from '../helpers/processes';
import { startLoadSmtpServer, type LoadSmtpServer } from '../helpers/load-smtp';
import { formatFigures, reconcile } from '../helpers/reconcile';
import { startSyncSource, type TestSyncSource } from '../helpers/sync-source';
import type { WorkerProcess } from '../../src/cluster/workers';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');

/** Jobs per fault: a few hundred by default; CLUSTER_FAULT_JOBS for more. */
const jobsPerFault = Number(process.env.CLUSTER_FAULT_JOBS ?? 200);

describe('native Temporal cluster on PostgreSQL, under faults', function () {
  // A cold cache builds the server first (several minutes); each fault then runs a few hundred jobs.
  this.timeout(20 * 60_000);
  let env: ClusterTestEnv;
  let smtp: LoadSmtpServer;
  let source: TestSyncSource;

  before(async function () {
    env = await startClusterTestEnv({ uiPort: await freePortOn('127.0.0.1') });
    smtp = await startLoadSmtpServer();
    source = await startSyncSource();
  });
  after(async () => {
    await env?.stop();
    await smtp?.close();
    await source?.close();
  });

  /** Runs a mixed load on fresh workers, lets `fault` strike while it runs, then reconciles and prints the figures. */
  async function underFault(title: string, fault: (load: RunningLoad, workers: WorkerProcess[], taskQueue: string) => Promise<Record<string, string | number>>, workerCount = 2) {
    const taskQueue = uniqueId('tq');
    const workers = await env.startWorkers(taskQueue, workerCount, { SMTP_URL: smtp.url, SYNC_SOURCE_URL: source.url });
    try {
      const plan = planLoad({ count: jobsPerFault, prefix: `f${randomUUID().slice(0, 8)}` });
      await prepareLoad(plan, env.db, source);
      const jobs = env.jobs(taskQueue);
      const load = runLoad(jobs, plan);
      const extra = await fault(load, workers, taskQueue);
      const outcomes = await load.done;
      const figures = await reconcile({ plan, load, outcomes, jobs, db: env.db, smtp, reportsDir: path.join(env.tmpDir, 'reports') });
      console.log(formatFigures(title, figures, extra));
      return figures;
    } finally {
      await Promise.all(workers.map((w) => w.kill()));
    }
  }

  /** Backlogged tasks of `taskQueue` (any partition) in the classic table and in the fairness table. */
  async function backlogRows(taskQueue: string): Promise<{ tasks: number; tasksV2: number }> {
    const client = new pg.Client({ connectionString: env.cluster.postgres.url('temporal_cluster') });
    await client.connect();
    try {
      // task_queue_id holds the namespace ID, the partition's name and the task type: the name is in its bytes.
      const count = async (table: string) =>
        Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE position(convert_to($1, 'UTF8') in task_queue_id) > 0`, [taskQueue])).rows[0]!.n);
      return { tasks: await count('tasks'), tasksV2: await count('tasks_v2') };
    } finally {
      await client.end();
    }
  }

  it('runs two nodes that share the database and see each other', async () => {
    const members = await clusterMembers(env.cluster.postgres, 'temporal_cluster');
    for (const node of env.cluster.nodes) {
      assert.deepEqual(members.filter((m) => m.address.startsWith(`${node.spec.ip}:`)).map((m) => m.role).sort(), ['frontend', 'history', 'matching', 'worker'], node.spec.name);
    }
    const config = loadConfig();
    const cli = await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath });
    const describe = JSON.parse(await run(cli.value, ['operator', 'cluster', 'describe', '--address', env.cluster.nodes[1]!.address, '-o', 'json'])) as Record<string, unknown>;
    assert.equal(describe.serverVersion, versions.temporalServer);
    assert.equal(describe.persistenceStore, 'postgres12');
  });

  it('serves the cluster in the standalone Web UI server', async () => {
    const response = await fetch(`${env.cluster.ui!.url}/api/v1/namespaces`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { namespaces: { namespaceInfo: { name: string } }[] };
    assert.ok(body.namespaces.some((n) => n.namespaceInfo.name === env.cluster.namespace), JSON.stringify(body).slice(0, 200));
  });

  it("serves Temporal's HTTP API on each node's frontend, where jobctl enqueues and reads without gRPC", async () => {
    const node = env.cluster.nodes[1]!;
    const taskQueue = uniqueId('tq-http');
    // gRPC points at nothing: only the node's HTTP API can answer.
    const httpOnly = { ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePortOn('127.0.0.1')}`, TEMPORAL_HTTP_ADDRESS: `${node.spec.ip}:${node.spec.ports.frontendHttp}`, TEMPORAL_NAMESPACE: env.cluster.namespace, TEMPORAL_TASK_QUEUE: taskQueue };
    const id = uniqueId('over-http');
    const enqueued = await runCommand(process.execPath, [jobctl, 'enqueue', 'noop', '{}', '--id', id], httpOnly, repoRoot);
    assert.equal(enqueued.code, 0, enqueued.stderr);
    assert.equal(enqueued.stdout, `${id}\n`);
    const status = await runCommand(process.execPath, [jobctl, 'status', id, '--json'], httpOnly, repoRoot);
    assert.equal(status.code, 0, status.stderr);
    assert.equal((JSON.parse(status.stdout) as { type: string }).type, 'noop');
    assert.equal((await env.jobs(taskQueue).get(id)).type, 'noop');
  });

  it('keeps a task queue\'s backlog in the fairness tables: the new matcher and fairness are on', async () => {
    const taskQueue = uniqueId('tq');
    const jobs = env.jobs(taskQueue);
    // No worker polls this queue: the job's first workflow task has to wait in the backlog.
    const { id } = await jobs.enqueue('send-email', { to: 'backlog@example.com', subject: 'backlog', body: 'waits', userId: 'backlog' }, { id: uniqueId('backlog') });
    try {
      const rows = await waitFor(() => backlogRows(taskQueue), (r) => r.tasksV2 > 0, 60_000);
      assert.ok(rows.tasksV2 >= 1, `the waiting workflow task is in tasks_v2 (${JSON.stringify(rows)})`);
      assert.equal(rows.tasks, 0, 'with matching.enableFairness nothing of the queue is written to the classic tasks table');
    } finally {
      await jobs.temporal.workflow.getHandle(id).terminate('test over');
    }
  });

  it('completes every job, none twice, when a Temporal node is killed mid-run and restarted', async () => {
    await underFault('node SIGKILL', async (load) => {
      await untilSettled(load, Math.floor(jobsPerFault / 4));
      const node = env.cluster.nodes[1]!;
      const at = load.settled();
      await node.kill();
      // The node stays down 5 s: the length of the fault, not a wait for progress (it struck on the
      // settled count above).
      await new Promise((r) => setTimeout(r, 5000));
      const restart = Date.now();
      await node.start();
      return { killedAfterSettled: at, nodeDownSeconds: 5, restartSeconds: Math.round((Date.now() - restart) / 1000) };
    });
  });

  it('completes a job on another worker, its side effect once, when its worker is killed mid-activity', async () => {
    const taskQueue = uniqueId('tq');
    const [first] = await env.startWorkers(taskQueue, 1, { SMTP_URL: smtp.url, SYNC_SOURCE_URL: source.url });
    const jobs = env.jobs(taskQueue);
    const to = `held-${randomUUID().slice(0, 8)}@example.com`;
    try {
      // Only the first worker polls, so the held delivery is its activity.
      const { id } = await jobs.enqueue('send-email', { to, subject: 'held', body: 'mid-activity', userId: 'held' }, { id: uniqueId('held') });
      await smtp.held(to);
      const [second] = await env.startWorkers(taskQueue, 1, { SMTP_URL: smtp.url, SYNC_SOURCE_URL: source.url });
      const killedAt = Date.now();
      await first!.kill();
      smtp.release();
      await jobs.temporal.workflow.getHandle(id).result();
      const recoverySeconds = Math.round((Date.now() - killedAt) / 1000);
      assert.equal(smtp.delivered.get(`<${id}@durable-jobs>`), 1, 'delivered once');
      // Usually 2; a retry handed to the dead worker's last poll before the server noticed it is lost
      // the same way, and the next start-to-close timeout brings a third.
      const { attempts } = await jobs.get(id);
      assert.ok(attempts >= 2, `a later attempt ran on the other worker (attempts ${attempts})`);
      console.log(`      [worker SIGKILL, held email] completed on the other worker ${recoverySeconds}s after the kill (start-to-close 30s), attempts=${attempts}, delivered once`);
      await second!.kill();
    } finally {
      await first!.kill();
    }
    // The same under load: one of two workers killed while its activities run.
    await underFault('worker SIGKILL', async (load, workers) => {
      await untilSettled(load, Math.floor(jobsPerFault / 4));
      const at = load.settled();
      await workers[0]!.kill();
      return { killedAfterSettled: at };
    });
  });

  it('recovers without manual action when PostgreSQL is restarted mid-run', async () => {
    await underFault('PostgreSQL restart', async (load) => {
      await untilSettled(load, Math.floor(jobsPerFault / 4));
      const at = load.settled();
      const started = Date.now();
      await env.cluster.localPostgres!.restart(5000);
      return { restartedAfterSettled: at, databaseDownSeconds: Math.round((Date.now() - started) / 1000) };
    });
  });
});
