import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { planLoad, prepareLoad, runLoad, untilSettled } from '../helpers/cluster-load';
import { startClusterTestEnv, type ClusterTestEnv } from '../helpers/cluster';
import { uniqueId } from '../helpers/env';
import { startLoadSmtpServer, type LoadSmtpServer } from '../helpers/load-smtp';
import { createNetnsLink, type NetnsLink } from '../helpers/netns';
import { formatFigures, reconcile } from '../helpers/reconcile';
import { startSyncSource, type TestSyncSource } from '../helpers/sync-source';

const jobs = Number(process.env.CLUSTER_FAULT_JOBS ?? 200);
/** How long the link stays cut: longer than membership needs to declare the node gone. */
const cutSeconds = Number(process.env.CLUSTER_CUT_SECONDS ?? 30);

// Node 2 runs in its own network namespace, joined to the host by a veth pair; PostgreSQL and
// node 1 listen on the host's end. Cutting the link isolates node 2 from the database and node 1.
describe('native cluster: the network to one node cut mid-run (network namespace + veth)', function () {
  this.timeout(20 * 60_000);
  let link: NetnsLink | undefined;
  let env: ClusterTestEnv;
  let smtp: LoadSmtpServer;
  let source: TestSyncSource;

  before(async function () {
    try {
      link = await createNetnsLink();
    } catch (err) {
      // Network namespaces need root (CAP_NET_ADMIN) and iproute2; CI runs as root, so there it must work.
      if (process.env.CI === 'true') throw err;
      console.log(`      skipped: cannot create a network namespace here (${err instanceof Error ? err.message : String(err)})`);
      this.skip();
    }
    const l = link!;
    env = await startClusterTestEnv({
      nodeIp: (i) => (i === 0 ? l.hostIp : l.nsIp),
      nodeNetns: (i) => (i === 0 ? undefined : l.ns),
      postgresNetwork: { listen: [l.hostIp, '127.0.0.1'], allow: [l.network] },
    });
    smtp = await startLoadSmtpServer();
    source = await startSyncSource();
  });
  after(async () => {
    await env?.stop();
    await smtp?.close();
    await source?.close();
    await link?.remove();
  });

  it(`completes every job, none twice, when node 2 is cut off for ${cutSeconds}s and comes back`, async () => {
    const taskQueue = uniqueId('tq');
    const workers = await env.startWorkers(taskQueue, 2, { SMTP_URL: smtp.url, SYNC_SOURCE_URL: source.url });
    try {
      const plan = planLoad({ count: jobs, prefix: `n${randomUUID().slice(0, 8)}` });
      await prepareLoad(plan, env.db, source);
      const client = env.jobs(taskQueue);
      const load = runLoad(client, plan);
      await untilSettled(load, Math.floor(jobs / 4));
      const at = load.settled();
      await link!.cut();
      await new Promise((r) => setTimeout(r, cutSeconds * 1000));
      const settledDuringCut = load.settled() - at;
      await link!.heal();
      const node = env.cluster.nodes[1]!;
      // A node cut off from its database may give up and exit; then it is restarted, as a supervisor would.
      const survived = node.process().child.exitCode === null && node.process().child.signalCode === null;
      if (!survived) await node.start();
      const outcomes = await load.done;
      const figures = await reconcile({ plan, load, outcomes, jobs: client, db: env.db, smtp, reportsDir: path.join(env.tmpDir, 'reports') });
      console.log(formatFigures('network cut', figures, { cutAfterSettled: at, cutSeconds, settledDuringCut, node2SurvivedCut: String(survived) }));
    } finally {
      await Promise.all(workers.map((w) => w.kill()));
    }
  });
});
