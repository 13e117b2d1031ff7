// The job metrics: names, meanings and histogram buckets, in one catalog that the workflow
// interceptor, the activity interceptor, the worker's sampler, the dashboard and its test all read.
// Pure data, so workflow code may import it. Names are what Prometheus and the dashboard query:
// never rename one in place.

/** A job metric: its name as exported (counters gain `_total`), kind and meaning. */
export interface JobMetric {
  /** The name given to the SDK's metric meter. */
  name: string;
  kind: 'counter' | 'histogram' | 'gauge';
  /** The exporter's HELP text. */
  description: string;
  /** Unit of a histogram or gauge. */
  unit?: string;
}

const metric = <N extends string>(name: N, kind: JobMetric['kind'], description: string, unit?: string) => ({ name, kind, description, unit }) as const;

/** Every job metric. Tags: `job_type` on all but the queue, outbox and breaker gauges; more per metric, as noted. */
export const jobMetrics = {
  started: metric('jobs_started', 'counter', 'Jobs started (a redrive starts its job again); excludes continue-as-new hand-overs'),
  completed: metric('jobs_completed', 'counter', 'Jobs completed'),
  attemptFailed: metric('jobs_attempt_failures', 'counter', 'Failed attempts, by error_type (incl. timeout:heartbeat, timeout:start-to-close, worker-shutdown)'),
  failed: metric('jobs_failed', 'counter', 'Jobs failed for good, by error_type'),
  deadLettered: metric('jobs_dead_lettered', 'counter', 'Jobs handed to the dead-letter queue, by error_type'),
  compensated: metric('jobs_compensated', 'counter', 'Jobs whose completed steps were compensated'),
  redriven: metric('jobs_redriven', 'counter', 'Dead-lettered jobs redriven'),
  cancelled: metric('jobs_cancelled', 'counter', 'Jobs cancelled'),
  stalled: metric('jobs_stalled', 'counter', 'Attempts that ended because the worker stopped answering, by reason (heartbeat-timeout, start-to-close-timeout, worker-shutdown)'),
  duration: metric('jobs_duration_seconds', 'histogram', 'Job duration from enqueue to its end, by outcome (completed, failed, cancelled)', 's'),
  attempts: metric('jobs_attempts', 'histogram', 'Attempts an activity execution took, by outcome (completed, failed)'),
  backlog: metric('jobs_queue_backlog', 'gauge', 'Tasks waiting in the task queue (approximate), by queue_type (workflow, activity)'),
  backlogAge: metric('jobs_queue_backlog_age_seconds', 'gauge', 'Age of the oldest task waiting in the task queue, by queue_type', 's'),
  paused: metric('jobs_paused', 'gauge', 'Whether the job type is paused (jobctl pause): 1 paused, 0 not'),
  pausedJobs: metric('jobs_paused_jobs', 'gauge', 'Open jobs a paused job type holds: waiting because of the pause, not backlog (0 when not paused)'),
  limitRunning: metric('jobs_limit_running', 'gauge', 'Jobs holding a slot of their type\'s concurrency limit (limits.concurrencyPerKey), summed over keys'),
  limitWaiting: metric('jobs_limit_waiting', 'gauge', 'Jobs waiting for a slot of their type\'s concurrency limit: held by the limit, not backlog'),
  ratePerKey: metric('jobs_rate_per_key', 'gauge', 'Activity starts per second per fairness key that the server allows on the job type\'s queue (limits.ratePerKey); 0 when the type declares none'),
  outboxBacklog: metric('jobs_outbox_backlog', 'gauge', 'Jobs committed to the job outbox (enqueueInTransaction) and not yet started by a relay'),
  outboxBacklogAge: metric('jobs_outbox_backlog_age_seconds', 'gauge', 'Age of the oldest job waiting in the job outbox', 's'),
  breakerState: metric('jobs_breaker_state', 'gauge', "State of a dependency's circuit breaker, by dependency: 0 closed, 1 half-open (its probe may run), 2 open (no attempt against it starts)"),
  deadLetterSize: metric('jobs_dead_letter_queue_size', 'gauge', 'Entries waiting in the dead-letter queue of each job type'),
} as const;

/** Histogram buckets: job durations span milliseconds (an email) to hours (a long sync). */
export const jobMetricBuckets: Record<string, number[]> = {
  [jobMetrics.duration.name]: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400],
  [jobMetrics.attempts.name]: [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100],
};

/** Why an attempt ended without its worker answering. */
export type StallReason = 'heartbeat-timeout' | 'start-to-close-timeout' | 'worker-shutdown';

/** The error type a stalled attempt is counted under in `jobs_attempt_failures`. */
export function stallErrorType(reason: StallReason): string {
  return reason === 'worker-shutdown' ? 'worker-shutdown' : `timeout:${reason.replace(/-timeout$/, '')}`;
}
