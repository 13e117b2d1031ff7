import { JobsError } from '../shared/errors';

/** The native cluster's error type. Matched by callers and scripts: never rename it in place. */
export const ClusterErrorType = {
  /** The native Temporal cluster (`npm run cluster`) could not be set up: a missing part, or a step that failed. */
  ClusterSetup: 'jobs:cluster-setup',
} as const;

/** The native cluster could not be set up: a missing part (PostgreSQL, a binary) or a step that failed. */
export class ClusterSetupError extends JobsError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ClusterErrorType.ClusterSetup, message, options);
  }
}
