// A PostgreSQL LISTEN on the outbox's channel: a commit that wrote to the outbox notifies it (the
// notification leaves with the commit), and the relay starts the job at once instead of at its next
// poll. The listener has a connection of its own; lost (a database restart), it connects again.
import type pg from 'pg';
import { loadPart } from '../shared/optional-packages';
import { outboxChannel } from './enqueue-in-transaction';
import type { RelayLogger } from './relay';

/** How long a lost listener waits before it connects again; the relay polls meanwhile. */
const reconnectMs = 5_000;

/** Listens on the outbox's channel at `url` and calls `wake` on each notification; resolves once listening, to the function that stops it. */
export async function listenForOutbox(url: string, wake: () => void, logger: RelayLogger): Promise<() => Promise<void>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a PostgreSQL URL
  const driver = loadPart('postgres', () => require('pg') as typeof pg);
  let client: pg.Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new driver.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    next.on('notification', () => wake());
    next.on('error', (err) => {
      if (stopped) return;
      logger.warn({ error: err.message }, 'outbox:listen-lost — the relay polls until the listener is back');
      void next.end().catch(() => {});
      retry();
    });
    await next.connect();
    await next.query(`LISTEN ${outboxChannel}`);
    client = next;
    // Rows committed while it was away: look now.
    wake();
  };
  const retry = () => {
    if (stopped) return;
    timer = setTimeout(() => void connect().catch(retry), reconnectMs);
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await client?.end().catch(() => {});
  };
}
