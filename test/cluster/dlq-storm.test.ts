import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { startClusterTestEnv, type ClusterTestEnv } from '../helpers/cluster';
import { runStorm } from '../helpers/dlq-storm';
import { uniqueId } from '../helpers/env';

/** Payments that fail in the storm on the cluster: a small one in `npm test`, more with STORM_JOBS (`npm run soak:dlq:cluster`). */
const stormJobs = Number(process.env.STORM_JOBS ?? 300);

// The failure storm on the native cluster (two Temporal nodes on PostgreSQL, two worker
// processes, the ledger on PostgreSQL): the DLQ's shards and batched hand-offs across processes.
describe(`failure storm on the native cluster: ${stormJobs} payments fail for good at once`, function () {
  this.timeout((15 + stormJobs / 5 / 60) * 60_000);
  let env: ClusterTestEnv;

  before(async () => {
    env = await startClusterTestEnv();
    await seedDemoAccounts(env.db);
  });
  after(async () => {
    await env?.stop();
  });

  it('puts every failed job in the DLQ exactly once, leaves none Running, keeps each DLQ run far below Temporal\'s limits, and serves the operator throughout', async () => {
    const taskQueue = uniqueId('tq');
    await env.startWorkers(taskQueue, 2);
    const jobctlEnv = { TEMPORAL_ADDRESS: env.cluster.address, TEMPORAL_NAMESPACE: env.cluster.namespace, TEMPORAL_TASK_QUEUE: taskQueue };
    await runStorm({ client: env.client, jobs: env.jobs(taskQueue), taskQueue, jobctlEnv }, stormJobs);
  });
});
