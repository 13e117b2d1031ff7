// `jobctl pause|resume <type>`: hold a job type's jobs (they are accepted and wait; no attempt
// starts, fails or uses up a retry), then release them.
import type { Command } from 'commander';
import { jobctlUser, withClient } from './cli-support';

/** Adds `pause <type> [--reason R]` and `resume <type>` to jobctl. */
export function addPauseCommands(program: Command): void {
  program
    .command('pause')
    .description('Pause a job type: its jobs are accepted and wait, no new attempt starts (running ones finish), none fails or uses up a retry; holds across restarts')
    .argument('<type>', 'job type (jobctl types lists them)')
    .option('--reason <text>', 'why, shown by jobctl stats and jobctl status')
    .option('--json', 'print the outcome as JSON')
    .action(async (type: string, opts: { reason?: string; json?: boolean }) => {
      const by = jobctlUser();
      const result = await withClient((c) => c.pauses.pause(type, { reason: opts.reason, by }), 'required', 'pause');
      if (opts.json) console.log(JSON.stringify(result));
      else if (result.alreadyPaused) console.log(`${type} was already paused since ${result.pause.since}${result.pause.by ? ` by ${result.pause.by}` : ''}; told its open jobs again (${result.signalled})`);
      else console.log(`paused ${type}; ${result.signalled} open job(s) told${schedulesLine(result.schedules, 'wait')}; resume with: jobctl resume ${type}`);
    });

  program
    .command('resume')
    .description("Resume a paused job type: its waiting jobs start, oldest first (the task queue orders them by priority)")
    .argument('<type>', 'job type')
    .option('--reason <text>', 'why, kept with the ended pause')
    .option('--json', 'print the outcome as JSON')
    .action(async (type: string, opts: { reason?: string; json?: boolean }) => {
      const by = jobctlUser();
      const result = await withClient((c) => c.pauses.resume(type, { reason: opts.reason, by }), 'optional');
      if (opts.json) console.log(JSON.stringify(result));
      else if (result.wasPaused) console.log(`resumed ${type} (paused since ${result.wasPaused.since}); ${result.signalled} open job(s) released${schedulesLine(result.schedules, 'run')}`);
      else console.log(`${type} was not paused; told its open jobs again (${result.signalled})`);
    });
}

/** How many of the type's schedules a pause or resume changed, when any. */
function schedulesLine(count: number, runs: 'wait' | 'run'): string {
  if (count === 0) return '';
  return `; ${count} schedule(s) keep firing, their runs ${runs === 'wait' ? 'wait too' : 'run again'}`;
}
