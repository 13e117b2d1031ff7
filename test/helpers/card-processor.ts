import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A charge request as the processor received it. */
export interface ProcessorCharge {
  invoiceId: string;
  card: string;
  idempotencyKey: string | undefined;
  at: number;
}

/** The outside project's card processor, on loopback: its `/charges` answers as a real one would. */
export interface CardProcessor {
  url: string;
  /** Every charge request received, in order. */
  charges: ProcessorCharge[];
  /** Answers the next request for an invoice of this subscription with 429 and `Retry-After: <seconds>`. */
  throttleOnce(subscriptionId: string, seconds: number): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

/** Starts the processor: declines the card `tok_declined` (402), throttles when told to, else charges (201). */
export async function startCardProcessor(): Promise<CardProcessor> {
  const charges: ProcessorCharge[] = [];
  const throttled = new Map<string, number>();
  const server = createServer((req, res) => {
    void body(req).then((text) => {
      const { invoiceId, card } = JSON.parse(text) as { invoiceId: string; card: string };
      const key = req.headers['idempotency-key'];
      charges.push({ invoiceId, card, idempotencyKey: typeof key === 'string' ? key : undefined, at: Date.now() });
      const subscription = invoiceId.split(':')[0]!;
      const wait = throttled.get(subscription);
      if (wait !== undefined) {
        throttled.delete(subscription);
        res.writeHead(429, { 'retry-after': String(wait) }).end();
      } else if (card === 'tok_declined') res.writeHead(402).end();
      else res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    charges,
    throttleOnce: (subscriptionId, seconds) => void throttled.set(subscriptionId, seconds),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
