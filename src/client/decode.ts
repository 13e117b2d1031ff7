import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';

type ProtoFailure = temporal.api.failure.v1.IFailure;

/** Runs a payload read straight from the history through the client's codecs (newest last, so decoded in reverse) and converter. */
export async function decodePayload(client: Client, payload: Payload): Promise<unknown> {
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let payloads = [payload];
  for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
  return payloadConverter.fromPayload(payloads[0]!);
}

/**
 * Restores, in place, the messages of failures read straight from a history or a description:
 * with encryption on, a failure's message and stack trace travel encrypted in `encodedAttributes`
 * and its `message` says only "Encoded failure".
 */
export async function decodeFailureMessages(client: Client, failures: readonly (ProtoFailure | null | undefined)[]): Promise<void> {
  for (const failure of failures) {
    for (let f: ProtoFailure | null | undefined = failure; f; f = f.cause) {
      if (!f.encodedAttributes) continue;
      const attributes = (await decodePayload(client, f.encodedAttributes)) as { message?: unknown } | undefined;
      if (typeof attributes?.message === 'string') f.message = attributes.message;
    }
  }
}
