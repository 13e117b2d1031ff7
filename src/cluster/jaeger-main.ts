// `npm run jaeger`: a local trace backend for a developer: Jaeger with traces in memory, its UI at
// http://127.0.0.1:16686, OTLP in at http://127.0.0.1:4318. Ctrl-C stops it (the traces go with it).
import path from 'node:path';
import { provisionJaeger } from '../provision/jaeger';
import { loadConfig } from '../shared/config';
import { describeRedacted } from '../shared/redact';
import { defaultJaegerPorts } from './jaeger-config';
import { startJaeger } from './jaeger-process';

async function main(): Promise<void> {
  const config = loadConfig();
  const { value: binary, route } = await provisionJaeger({ ...config, log: (line) => console.error(`[provision] ${line}`) });
  const jaeger = await startJaeger({ binary, dir: path.join(config.dataDir, 'jaeger'), ports: defaultJaegerPorts });
  console.log(`Jaeger (via ${route}): UI ${jaeger.queryUrl}, log ${jaeger.logFile}`);
  console.log(`Send traces to it: OTEL_EXPORTER_OTLP_ENDPOINT=${jaeger.otlpUrl} npm start (and the same for your API process)`);
  let stopping = false;
  const stop = () => {
    stopping = true;
    void jaeger.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const code = await jaeger.child.exited;
  if (stopping) return;
  console.error(`Jaeger exited (${String(code)}); see ${jaeger.logFile}`);
  process.exit(1);
}

main().catch((err) => {
  console.error(describeRedacted(err));
  process.exit(1);
});
