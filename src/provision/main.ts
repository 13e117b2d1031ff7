// `npm run provision`: makes sure the binaries are in the cache — the Temporal CLI, the test server,
// the native cluster's server, schema tool and UI server, and Jaeger (the tracing test's backend) —
// and says where they came from.
import { loadConfig } from '../shared/config';
import { describeRedacted } from '../shared/redact';
import { provisionJaeger } from './jaeger';
import { provisionTemporalCli } from './temporal-cli';
import { provisionTemporalServer, provisionTemporalUi } from './temporal-server';
import { createTimeSkippingEnv } from './test-server';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = (line: string) => console.error(`[provision] ${line}`);
  const cli = await provisionTemporalCli({ ...config, log });
  console.log(`temporal CLI: ${cli.value} (via ${cli.route})`);
  const env = await createTimeSkippingEnv({ ...config, log });
  console.log(`time-skipping test server: started (via ${env.route})`);
  await env.value.teardown();
  const server = await provisionTemporalServer({ ...config, log });
  console.log(`Temporal server, schema tool and schema: ${server.value.server}, ${server.value.sqlTool}, ${server.value.schemaDir} (via ${server.route})`);
  const ui = await provisionTemporalUi({ ...config, log });
  console.log(`Temporal UI server: ${ui.value.uiServer} (via ${ui.route})`);
  const jaeger = await provisionJaeger({ ...config, log });
  console.log(`Jaeger: ${jaeger.value} (via ${jaeger.route})`);
}

main().catch((err) => {
  console.error(describeRedacted(err));
  process.exit(1);
});
