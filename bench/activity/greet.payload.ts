import { z } from 'zod';

/** Payload of a `greet` job. */
export const greetPayload = z.strictObject({
  /** Whom to greet. */
  name: z.string().min(1).max(200),
});

/** A validated `greet` payload. */
export type GreetPayload = z.output<typeof greetPayload>;
