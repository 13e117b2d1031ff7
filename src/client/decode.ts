import type { Client } from '@temporalio/client';
import type { LoadedDataConverter, Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';

type ProtoFailure = temporal.api.failure.v1.IFailure;

/** What decoding a payload takes: a client's codecs and converter (or jobctl's HTTP reads' own). */
export type PayloadDecoding = Pick<LoadedDataConverter, 'payloadCodecs' | 'payloadConverter'>;

/** The decoding of an SDK client: its data converter as loaded. */
export const decodingOf = (client: Client): PayloadDecoding => client.options.loadedDataConverter;

/** Runs a payload read straight from the history through the codecs (newest last, so decoded in reverse) and converter. */
export async function decodePayload(from: Client | PayloadDecoding, payload: Payload): Promise<unknown> {
  const { payloadCodecs, payloadConverter } = 'options' in from ? decodingOf(from) : from;
  let payloads = [payload];
  for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
  return payloadConverter.fromPayload(payloads[0]!);
}

/**
 * Restores, in place, the messages of failures read straight from a history or a description:
 * with encryption on, a failure's message and stack trace travel encrypted in `encodedAttributes`
 * and its `message` says only "Encoded failure".
 */
export async function decodeFailureMessages(from: Client | PayloadDecoding, failures: readonly (ProtoFailure | null | undefined)[]): Promise<void> {
  for (const failure of failures) {
    for (let f: ProtoFailure | null | undefined = failure; f; f = f.cause) {
      if (!f.encodedAttributes) continue;
      const attributes = (await decodePayload(from, f.encodedAttributes)) as { message?: unknown } | undefined;
      if (typeof attributes?.message === 'string') f.message = attributes.message;
    }
  }
}
