import { parseJobPayload } from '../../src/activity-kit';
import { greetPayload } from './greet.payload';

/** What a `greet` job returns. */
export interface GreetResult {
  greeting: string;
}

/** The `greet` job's activities: as cheap as the plain application's `greet`, plus the payload check. */
export function createActivities() {
  return {
    /** The payload is validated again here because it crossed a process boundary. */
    async greet(payload: unknown): Promise<GreetResult> {
      const { name } = parseJobPayload('greet', greetPayload, payload);
      return { greeting: `Hello, ${name}!` };
    },
  };
}

/** The activities' type, for the workflow's `job.activities`. */
export type Activities = ReturnType<typeof createActivities>;
