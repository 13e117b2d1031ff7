import { JobsError } from '../shared/errors';

/** Provisioning's error type. Matched by callers and scripts: never rename it in place. */
export const ProvisionErrorType = {
  /** No route could provide a Temporal binary. */
  ProvisionFailed: 'jobs:provision-failed',
} as const;

/** One provisioning route that was tried, and why it did not work. */
export interface RouteFailure {
  /** The route, e.g. `TEMPORAL_CLI_PATH` or `go install …`. */
  route: string;
  /** Why it failed or was skipped. */
  reason: string;
}

/** No route could provide a Temporal binary; the message lists every route and its reason. */
export class ProvisionError extends JobsError {
  constructor(
    what: string,
    readonly failures: RouteFailure[],
  ) {
    super(
      ProvisionErrorType.ProvisionFailed,
      `no route could provide the ${what}:\n${failures.map((f, i) => `  ${i + 1}. ${f.route}: ${f.reason}`).join('\n')}`,
    );
  }
}
