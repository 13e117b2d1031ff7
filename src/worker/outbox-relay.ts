// The worker's part of the job outbox: where its catalog declares a database, it runs the relay
// (src/outbox/relay.ts) over it and listens for PostgreSQL commits; and every such worker with
// metrics samples the outbox's backlog into gauges.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import type { Kysely } from 'kysely';
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import { JobClient } from '../client/job-client';
import { databaseKind } from '../db/database';
import { OutboxRelay } from '../outbox/relay';
import { listenForOutbox } from '../outbox/outbox-listener';
import { readOutboxBacklog } from '../outbox/outbox-backlog';
import { jobMetrics } from '../shared/job-metrics';
import { describeError } from '../shared/errors';
import { msToNumber } from '../shared/sdk-internals';
import type { Config } from '../shared/config';

/** Starts the relay; resolves to the function that stops it (after the batch in hand). */
export async function startOutboxRelay(input: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's tables plus the outbox's
  db: Kysely<any>;
  client: Client;
  catalog: Catalog;
  config: Pick<Config, 'taskQueue' | 'databaseUrl' | 'jobOutboxRetention'>;
  logger: pino.Logger;
}): Promise<() => Promise<void>> {
  const { db, client, catalog, config, logger } = input;
  const jobs = new JobClient(client, { taskQueue: config.taskQueue, catalog });
  const relay = new OutboxRelay({
    db,
    catalog,
    start: (job) => jobs.start(job),
    logger,
    holder: `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    retentionMs: msToNumber(config.jobOutboxRetention as Parameters<typeof msToNumber>[0]),
    listen: databaseKind(config.databaseUrl) === 'postgres' ? (wake) => listenForOutbox(config.databaseUrl, wake, logger) : undefined,
  });
  await relay.start();
  logger.info({ database: databaseKind(config.databaseUrl), types: catalog.types.length }, 'outbox:relaying');
  return () => relay.stop();
}

/** Samples the outbox's backlog into its gauges every `metricsSampleInterval`, relay or not; returns how to stop. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see startOutboxRelay
export function sampleOutboxBacklog(db: Kysely<any>, config: Pick<Config, 'metricsSampleInterval'>, logger: pino.Logger): () => void {
  const meter = Runtime.instance().metricMeter;
  const backlog = meter.createGauge(jobMetrics.outboxBacklog.name, 'float', jobMetrics.outboxBacklog.unit, jobMetrics.outboxBacklog.description);
  const age = meter.createGauge(jobMetrics.outboxBacklogAge.name, 'float', jobMetrics.outboxBacklogAge.unit, jobMetrics.outboxBacklogAge.description);
  let failing = false;
  const sample = () =>
    readOutboxBacklog(db).then(
      (b) => {
        backlog.set(b.waiting, {});
        age.set(b.oldestAgeSeconds, {});
        failing = false;
      },
      (err: unknown) => {
        if (!failing) logger.warn({ error: describeError(err) }, 'metrics:outbox-sampling-failed');
        failing = true;
      },
    );
  void sample();
  const timer = setInterval(() => void sample(), msToNumber(config.metricsSampleInterval as Parameters<typeof msToNumber>[0]));
  timer.unref();
  return () => clearInterval(timer);
}
