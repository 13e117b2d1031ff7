// `npm run provision`: makes sure both Temporal binaries are in the cache, and says where they came from.
import { loadConfig } from '../shared/config';
import { describeRedacted } from '../shared/redact';
import { provisionTemporalCli } from './temporal-cli';
import { createTimeSkippingEnv } from './test-server';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = (line: string) => console.error(`[provision] ${line}`);
  const cli = await provisionTemporalCli({ ...config, log });
  console.log(`temporal CLI: ${cli.value} (via ${cli.route})`);
  const env = await createTimeSkippingEnv({ ...config, log });
  console.log(`time-skipping test server: started (via ${env.route})`);
  await env.value.teardown();
}

main().catch((err) => {
  console.error(describeRedacted(err));
  process.exit(1);
});
