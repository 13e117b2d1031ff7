import { Help, type Command } from 'commander';

/**
 * What `jobctl --help` lists for each top-level command (its usage term and description), in
 * help's order, so that the list loads none of the commands' modules: loading them all (the
 * client, zod, the DLQ and console code) made `jobctl --help` take 260–440 ms. A command's own
 * help (`jobctl enqueue --help`, `jobctl help enqueue`) comes from its module as before.
 * test/jobctl/cli-help.test.ts fails, printing the entries to put here, when this drifts from
 * what the modules define.
 */
export const commandSummaries: Readonly<Record<string, { term: string; description: string }>> = {
  enqueue: { term: 'enqueue [options] <type> [payload-json]', description: 'Validate a payload and enqueue a job; prints the job ID. With --file, enqueue one job per line of a file' },
  status: { term: 'status [options] <id>', description: 'Print a job record, read from Temporal' },
  result: { term: 'result [options] <id>', description: 'Wait for a job to finish and print its result as JSON; exits 1 if the job failed' },
  cancel: { term: 'cancel <id>', description: 'Cancel a job: its attempt is cancelled, completed steps are compensated, and it ends as cancelled' },
  list: { term: 'list [options]', description: 'List jobs from Temporal visibility, newest first (dead-lettered: from the dead-letter queues, oldest failure first)' },
  dlq: { term: 'dlq', description: 'Triage jobs that failed for good: list, group, inspect, redrive, discard' },
  stats: { term: 'stats [options]', description: 'Count jobs per type (backlog, waiting for a concurrency slot, running, completed, failed, dead-lettered) and the task queue backlog' },
  pause: { term: 'pause [options] <type>', description: 'Pause a job type: its jobs are accepted and wait, no new attempt starts (running ones finish), none fails or uses up a retry; holds across restarts' },
  resume: { term: 'resume [options] <type>', description: 'Resume a paused job type: its waiting jobs start, oldest first (the task queue orders them by priority)' },
  breakers: { term: 'breakers [options]', description: "Show each dependency's circuit breaker: closed, open or half-open, since when and why, and its last changes" },
  breaker: { term: 'breaker', description: "Order a dependency's circuit breaker open (held until ordered closed) or closed (at once); recorded with JOBCTL_USER and --reason" },
  'codec-server': { term: 'codec-server [options]', description: 'Serve the payload codec to the Temporal Web UI (and `temporal --codec-endpoint`) so that people who reach it see decrypted payloads' },
  keygen: { term: 'keygen [options]', description: 'Print a new encryption key entry, <key-id>:<base64>, for ENCRYPTION_KEYS or a key file (append it last to rotate)' },
  console: { term: 'console [options]', description: 'Serve the operator console (overview, jobs, dead letters, schedules) against the configured deployment; Ctrl-C stops it' },
  schedule: { term: 'schedule', description: 'Recurring jobs: each run is an ordinary job, whose ID is the schedule ID plus the scheduled time' },
  doctor: { term: 'doctor [options]', description: 'Check that jobs can run here: server, namespace, search attributes, pollers, encryption keys, flow control on the server; exits 1 on any FAIL' },
  types: { term: 'types [options]', description: "List the catalog's job types" },
};

/** Adds every top-level command to `program` as its summary alone: enough for the list help prints and for "unknown command" suggestions. */
export function addCommandSummaries(program: Command): void {
  for (const [name, { description }] of Object.entries(commandSummaries)) program.command(name).description(description);
  const standard = new Help();
  program.configureHelp({ subcommandTerm: (cmd) => commandSummaries[cmd.name()]?.term ?? standard.subcommandTerm(cmd) });
}
