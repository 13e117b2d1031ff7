import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePortOn } from '../../src/cluster/ports';
import { startJaeger, type RunningJaeger } from '../../src/cluster/jaeger-process';
import { provisionJaeger } from '../../src/provision/jaeger';
import { loadConfig } from '../../src/shared/config';
import { spansOf, type OtlpTraces, type ReceivedSpan } from './otlp-spans';

/** A real Jaeger for a test file, on free ports, read through its query API (v3, OTLP/JSON). */
export interface TestJaeger {
  /** For `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  otlpUrl: string;
  /** Every span Jaeger holds of one trace; none when it holds no such trace. */
  trace(traceId: string): Promise<ReceivedSpan[]>;
  /** Every span of the traces of `service` that started after `since`, as Jaeger's search finds them. */
  search(service: string, since: Date): Promise<ReceivedSpan[]>;
  /** The IDs of the traces of `service` holding a span tagged `key=value`, as the UI's search by tag finds them. */
  traceIdsTagged(service: string, key: string, value: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Provisions (builds, on a cold cache) and starts Jaeger. */
export async function startTestJaeger(): Promise<TestJaeger> {
  const config = loadConfig();
  const { value: binary } = await provisionJaeger({ cacheDir: config.cacheDir, log: (line, level) => level === 'info' && console.error(`[provision] ${line}`) });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'jaeger-'));
  const host = '127.0.0.1';
  const ports = { otlpHttp: await freePortOn(host), otlpGrpc: await freePortOn(host), query: await freePortOn(host), queryGrpc: await freePortOn(host) };
  let jaeger: RunningJaeger;
  try {
    jaeger = await startJaeger({ binary, dir, host, ports });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const get = async (pathAndQuery: string): Promise<ReceivedSpan[]> => {
    const response = await fetch(`${jaeger.queryUrl}${pathAndQuery}`);
    // Jaeger answers 404 for a trace or a search it has nothing for.
    if (response.status === 404) return [];
    if (!response.ok) throw new Error(`Jaeger ${pathAndQuery}: HTTP ${response.status}: ${await response.text()}`);
    return spansOf(((await response.json()) as { result?: OtlpTraces }).result ?? {});
  };
  return {
    otlpUrl: jaeger.otlpUrl,
    trace: (traceId) => get(`/api/v3/traces/${traceId}`),
    search: (service, since) => {
      const query = new URLSearchParams({
        'query.service_name': service,
        'query.start_time_min': since.toISOString(),
        'query.start_time_max': new Date(Date.now() + 60_000).toISOString(),
        'query.num_traces': '1000',
      });
      return get(`/api/v3/traces?${query}`);
    },
    traceIdsTagged: async (service, key, value) => {
      // The UI's own API (v1): its search by tag is what a person types; v3's HTTP search has none.
      const query = new URLSearchParams({ service, tags: JSON.stringify({ [key]: value }), lookback: '1h', limit: '100' });
      const response = await fetch(`${jaeger.queryUrl}/api/traces?${query}`);
      if (!response.ok) throw new Error(`Jaeger /api/traces: HTTP ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { data?: { traceID: string }[] }).data?.map((t) => t.traceID) ?? [];
    },
    close: async () => {
      await jaeger.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
