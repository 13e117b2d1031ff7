import { parseJobPayload, withRetrySchedule } from '../../src/activity-kit';
import { greetJob } from './greet';
import { greetPayload } from './greet.payload';

/** Input of the `greet` activity. */
export interface GreetInput {
  /** The job's payload, validated again here because it crossed a process boundary. */
  payload: unknown;
}

/** What a `greet` job returns. */
export interface GreetResult {
  greeting: string;
}

/** The `greet` job's activities: as cheap as the plain application's `greet`, plus the payload check. */
export function createActivities() {
  return {
    greet: withRetrySchedule(greetJob, 'greet', async (input: GreetInput): Promise<GreetResult> => {
      const { name } = parseJobPayload('greet', greetPayload, input.payload);
      return { greeting: `Hello, ${name}!` };
    }),
  };
}

/** The activities' type, for the workflow's `jobActivities`. */
export type Activities = ReturnType<typeof createActivities>;
