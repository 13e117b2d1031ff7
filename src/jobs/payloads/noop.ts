import { z } from 'zod';

/** Payload of a `noop` job. */
export const noopPayload = z
  .object({
    /**
     * Fail this many first attempts (retryably) before succeeding, to watch a retry happen.
     * @defaultValue 0
     */
    failAttempts: z.number().int().min(0).max(3).default(0),
  })
  .strict();

/** A validated `noop` payload. */
export type NoopPayload = z.infer<typeof noopPayload>;
