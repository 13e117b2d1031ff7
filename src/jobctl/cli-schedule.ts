// `jobctl schedule …`: recurring jobs through Temporal Schedules.
import type { Command } from 'commander';
import type { Duration } from '@temporalio/common';
import { parseJson, parsePriority, withClient } from './cli-support';
import { formatTable } from '../client/format';
import { addFairnessOptions, parseFairnessFlags, type FairnessFlags } from './cli-fairness';
import type { JobClient } from '../client/job-client';

/** Adds `schedule create|list|pause|unpause|trigger|delete` to jobctl. */
export function addScheduleCommands(program: Command): void {
  const schedule = program.command('schedule').description('Recurring jobs: each run is an ordinary job, whose ID is the schedule ID plus the scheduled time');

  const create = schedule
    .command('create')
    .description('Validate a payload and create a schedule that enqueues it; prints the schedule ID')
    .argument('<type>', 'job type (jobctl types lists them)')
    .argument('<payload-json>', 'the payload of every run, as JSON')
    .option('--cron <line>', 'cron line in UTC, e.g. "0 2 * * *" or @daily')
    .option('--every <duration>', 'interval, e.g. 5m, 1h')
    .option('--id <id>', 'schedule ID (default <type>-schedule-<uuid>)')
    .option('--priority <1-5>', 'priority of each run: 1 highest, 5 lowest (default 3)')
    .option('--paused', 'create it paused');
  addFairnessOptions(create)
    .action(async (type: string, payloadJson: string, opts: { cron?: string; every?: string; id?: string; priority?: string; paused?: boolean } & FairnessFlags) => {
      const payload = parseJson(payloadJson, 'payload-json');
      const priority = parsePriority(opts.priority);
      const fairness = parseFairnessFlags(opts);
      // create validates the type, payload and options before it calls Temporal.
      const { id } = await withClient(
        (c) => c.schedules.create(type, payload as never, { id: opts.id, cron: opts.cron, every: opts.every as Duration | undefined, priority, paused: opts.paused, ...fairness }),
        'required',
        'schedule create',
      );
      console.log(id);
    });

  schedule
    .command('list')
    .description("List this deployment's schedules")
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }) => {
      const rows = await withClient((c) => c.schedules.list());
      if (opts.json) return console.log(JSON.stringify(rows, null, 2));
      const table = rows.map((r) => ({ ...r, paused: r.paused ? 'paused' : '', lastJob: r.recentJobs.at(-1) }));
      console.log(formatTable(table, ['id', 'type', 'spec', 'paused', 'priority', 'nextRunAt', 'lastJob']));
    });

  for (const [name, description, run] of [
    ['pause', 'Stop starting runs (runs already started go on)', (c, id) => c.schedules.pause(id)],
    ['unpause', 'Start runs again from the next scheduled time', (c, id) => c.schedules.unpause(id)],
    ['trigger', 'Start one run now, besides the scheduled ones', (c, id) => c.schedules.trigger(id)],
    ['delete', 'Delete the schedule (runs already started go on)', (c, id) => c.schedules.delete(id)],
  ] as const satisfies readonly (readonly [string, string, (c: JobClient, id: string) => Promise<void>])[]) {
    schedule
      .command(name)
      .description(description)
      .argument('<id>', 'schedule ID')
      .action(async (id: string) => {
        await withClient((c) => run(c, id));
        console.log(`${name === 'trigger' ? 'triggered' : `${name}d`} ${id}`);
      });
  }
}
