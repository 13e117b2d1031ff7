// `jobctl breakers` and `jobctl breaker open|close <dependency>`: each dependency's circuit breaker,
// and an operator's order to hold one open or close it (recorded with who and why).
import type { Command } from 'commander';
import type { BreakerView } from '../client/breakers';
import { sanitizeForTerminal } from '../client/format';
import { jobctlUser, withClient } from './cli-support';

/** One breaker as a line: its state, since when, why, and when its probe is due. */
export function breakerLine(view: BreakerView): string {
  const probe = view.forced ? `held open by ${view.forced.by ?? 'an operator'}` : view.probeAt ? `probe at ${view.probeAt}` : undefined;
  const turns = view.suspect ? 'a failure is counted: attempts take turns until one succeeds' : undefined;
  return sanitizeForTerminal([`${view.dependency}: ${view.state}${view.since ? ` since ${view.since}` : ''}`, view.why, probe, turns].filter(Boolean).join(' — '));
}

/** Adds `breakers` and `breaker open|close` to jobctl. */
export function addBreakerCommands(program: Command): void {
  program
    .command('breakers')
    .description("Show each dependency's circuit breaker: closed, open or half-open, since when and why, and its last changes")
    .option('--json', 'print the breakers as JSON')
    .action(async (opts: { json?: boolean }) => {
      const views = await withClient((c) => c.breakers.list(), 'optional');
      if (opts.json) return console.log(JSON.stringify(views));
      if (views.length === 0) return console.log('no dependencies (no preset names one) and no breaker ran');
      for (const view of views) {
        console.log(breakerLine(view));
        for (const c of view.changes.slice(-5)) console.log(sanitizeForTerminal(`  ${c.at} ${c.from} → ${c.to}${c.by ? ` by ${c.by}` : ''}: ${c.why}`));
      }
    });

  const breaker = program.command('breaker').description("Order a dependency's circuit breaker open (held until ordered closed) or closed (at once); recorded with JOBCTL_USER and --reason");
  for (const state of ['open', 'closed'] as const) {
    breaker
      .command(state === 'open' ? 'open' : 'close')
      .description(state === 'open' ? 'Hold the breaker open: no attempt against the dependency starts, none uses up a retry; no probe runs until closed' : 'Close the breaker now: attempts against the dependency start again, at its rate')
      .argument('<dependency>', 'the dependency (jobctl breakers lists them)')
      .option('--reason <text>', 'why, kept with the change')
      .option('--json', 'print the breaker after the order as JSON')
      .action(async (dependency: string, opts: { reason?: string; json?: boolean }) => {
        const by = jobctlUser();
        // A worker busy with a backlog on the shared queue takes the order late: say so, and wait.
        const onWait = () => process.stderr.write(`jobctl: the breaker of ${dependency} has not taken the order after 20 s; a worker polls the shared queue, so it is waited for (a backlog there delays it; Ctrl-C stops waiting, and the server still applies it)\n`);
        const view = await withClient((c) => c.breakers.order(dependency, state, { by, reason: opts.reason, onWait }), 'optional');
        console.log(opts.json ? JSON.stringify(view) : breakerLine(view));
      });
  }
}
