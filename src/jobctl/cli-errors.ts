// jobctl's own error kinds, apart from cli-support so the entry point names them without loading the client.
import { ErrorType, JobsError } from '../shared/errors';

/** Bad input: the user can fix the command line (exit 2). jobctl prints its {@link JobsError.detail}, worded for the command line. */
export class UsageError extends JobsError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(ErrorType.Usage, detail, options);
  }
}

/** The job itself failed, or did not finish in time; not an input or connection problem, but still exit 1. jobctl prints its detail. */
export class JobFailedError extends JobsError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(ErrorType.JobFailed, detail, options);
  }
}

/** The operator stopped the command with a signal and it stopped cleanly: exit 128 + the signal's number (130 for SIGINT, 143 for SIGTERM). jobctl prints its detail. */
export class InterruptedError extends JobsError {
  constructor(
    readonly exitCode: number,
    detail: string,
  ) {
    super(ErrorType.Interrupted, detail);
  }
}
