// `jobctl doctor`: can this deployment run jobs on the Temporal it points at?
import { planDependencies } from '../catalog/dependency-plan';
import type { Command } from 'commander';
import { planQueues } from '../catalog/task-queues';
import { projectCatalog } from './cli-catalog';
import { loadConfig } from '../shared/config';
import { UnreachableError } from '../shared/errors';
import { temporalAddress } from '../shared/temporal-connection';
import { doctorReport, runDoctor, type DoctorReport } from './doctor';
import { flowControlUses } from '../client/flow-control-check';
import { sanitizeForTerminal } from '../client/format';
import { JobClient } from '../client/job-client';

/** The doctor found a check that stops jobs from running: exit 1, after the report. */
export class DoctorFailedError extends Error {}

/** Adds `doctor [--json]` to jobctl. */
export function addDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('Check that jobs can run here: server, namespace, search attributes, pollers, encryption keys, flow control on the server; exits 1 on any FAIL')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { json?: boolean }) => {
      const config = loadConfig();
      const address = temporalAddress(config);
      let report: DoctorReport;
      let jobs: JobClient | undefined;
      try {
        jobs = await JobClient.connect();
        // Every queue the catalog's job types run on; without a catalog, the shared queue alone.
        const catalog = projectCatalog('optional', 'doctor');
        // A dependency's queue too: with no worker polling it, the steps against it wait.
        const taskQueues = catalog ? [...planQueues(jobs.taskQueue, catalog.definitions), ...planDependencies(jobs.taskQueue, catalog.definitions)].map((p) => p.taskQueue) : [jobs.taskQueue];
        const flowControl = flowControlUses(catalog?.definitions ?? []);
        report = await runDoctor(jobs.temporal, { address, sharedQueue: jobs.taskQueue, taskQueues, flowControl });
      } catch (err) {
        if (!(err instanceof UnreachableError)) throw err;
        report = doctorReport(config.namespace, [{ name: 'server', status: 'FAIL', detail: err.message }]);
      } finally {
        await jobs?.close();
      }
      console.log(opts.json ? JSON.stringify(report, null, 2) : formatDoctorReport(report));
      const failed = report.checks.filter((c) => c.status === 'FAIL').length;
      if (failed > 0) throw new DoctorFailedError(`${failed} check(s) FAIL: jobs cannot run on namespace "${report.namespace}" until they are fixed`);
    });
}

/** One line per check (`ok`, `warn` or `FAIL`), with its fix indented below it. */
export function formatDoctorReport(report: DoctorReport): string {
  return report.checks
    .flatMap((c) => [`${c.status.padEnd(4)}  ${c.name}: ${c.detail}`, ...(c.fix ?? '').split('\n').filter(Boolean).map((line, i) => `${i === 0 ? '      fix: ' : '           '}${line}`)])
    .map(sanitizeForTerminal)
    .join('\n');
}
