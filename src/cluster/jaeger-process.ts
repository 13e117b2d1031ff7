import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnLogged, waitForPort, type ClusterChild } from './child';
import { jaegerConfig, type JaegerPorts } from './jaeger-config';

/** A running Jaeger. */
export interface RunningJaeger {
  /** The OTLP/HTTP endpoint, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  otlpUrl: string;
  /** The UI, and the query API under `/api/v3`. */
  queryUrl: string;
  /** Its output. */
  logFile: string;
  child: ClusterChild;
  /** SIGTERM, then SIGKILL after 10 s. */
  stop(): Promise<void>;
}

/** What {@link startJaeger} needs. */
export interface JaegerStart {
  /** The binary, as `provisionJaeger` provides it. */
  binary: string;
  /** Holds its configuration and log. */
  dir: string;
  /** @defaultValue 127.0.0.1 */
  host?: string;
  ports: JaegerPorts;
}

/** Starts Jaeger with traces in memory, and resolves once its OTLP receiver and query API answer. */
export async function startJaeger(start: JaegerStart): Promise<RunningJaeger> {
  const host = start.host ?? '127.0.0.1';
  await mkdir(start.dir, { recursive: true });
  const configFile = path.join(start.dir, 'jaeger.yaml');
  const logFile = path.join(start.dir, 'jaeger.log');
  await writeFile(configFile, jaegerConfig(host, start.ports));
  const child = spawnLogged('jaeger', start.binary, ['--config', configFile], process.env, logFile);
  try {
    await waitForPort(child, host, start.ports.otlpHttp, 60_000, logFile);
    await waitForPort(child, host, start.ports.query, 60_000, logFile);
  } catch (err) {
    await child.kill();
    throw err;
  }
  return { otlpUrl: `http://${host}:${start.ports.otlpHttp}`, queryUrl: `http://${host}:${start.ports.query}`, logFile, child, stop: () => child.stop() };
}
