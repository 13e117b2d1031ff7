import type { ApplicationFailure } from '@temporalio/common';
import { ErrorType, describeError } from '../shared/errors';
import { retryable } from '../shared/failures';

/** No space left on the device, or the user's disk quota is used up. */
const diskFullCodes = new Set(['ENOSPC', 'EDQUOT']);

/** Where an activity writes: the directory and the setting that names it, for the message. */
export interface WriteTarget {
  /** The directory, e.g. the outbox. */
  dir: string;
  /** The setting that chose it, e.g. `OUTBOX_DIR`. */
  setting: string;
}

/**
 * A retryable `jobs:disk-full` naming the directory and its setting when `err` is ENOSPC or
 * EDQUOT, else `undefined`. Retried on the step's schedule: once space is freed (or the setting
 * points elsewhere), the next attempt writes the file.
 */
export function diskFullFailure(err: unknown, target: WriteTarget): ApplicationFailure | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (!code || !diskFullCodes.has(code)) return undefined;
  return retryable(
    ErrorType.DiskFull,
    `no space left in ${target.dir} (${code}, ${target.setting}): free space there or point ${target.setting} at a larger file system; retried on the job's schedule: ${describeError(err)}`,
    err,
  );
}
