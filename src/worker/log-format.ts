import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../shared/config';

/**
 * Fields a terminal reader does not need on every line: they are constant for the process or
 * repeat what the line's head already says. JSON lines keep all of them.
 */
const hiddenInTerminal = 'pid,hostname,service,ts,sdkComponent,namespace,taskQueue,workflowType,activityType,workflowId,workflowRunId,runId,jobId,jobType,attempt,isLocal,taskToken,activityId';

/** The log format in effect: `LOG_FORMAT`, else pretty on a terminal and JSON lines elsewhere. */
export function logFormat(config: Pick<Config, 'logFormat'>, stdoutIsTty: boolean = process.stdout.isTTY === true): 'json' | 'pretty' {
  return config.logFormat ?? (stdoutIsTty ? 'pretty' : 'json');
}

/**
 * The head of a pretty line: the event, then the job it is about (`job:completed send-email
 * hello-1 #2`), so a terminal reads like a tool's output rather than a log shipper's.
 */
export function prettyHead(log: Record<string, unknown>, messageKey: string): string {
  const parts = [String(log[messageKey] ?? '')];
  if (typeof log.jobType === 'string') parts.push(log.jobType);
  if (typeof log.jobId === 'string') parts.push(log.jobId);
  if (typeof log.attempt === 'number') parts.push(`#${log.attempt}`);
  return parts.join(' ');
}

/** A synchronous pino-pretty stream on stdout: one line per event, the rest of its fields inline. */
export function prettyStream(colorize: boolean): DestinationStream {
  return pretty({
    colorize,
    sync: true,
    singleLine: true,
    // Our `error` fields are messages, not Error objects: keep them on the event's line.
    errorLikeObjectKeys: ['err'],
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: hiddenInTerminal,
    messageFormat: (log, messageKey) => prettyHead(log, messageKey),
  });
}
