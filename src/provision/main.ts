// `npm run provision [-- PART...]`: makes sure the binaries are in the cache — the Temporal CLI, the
// test server, the native cluster's server, schema tool and UI server, and Jaeger (the tracing
// test's backend) — and says where they came from. The parts are provisioned side by side (their
// Go builds download modules while others compile); naming parts provisions only those.
import { loadConfig } from '../shared/config';
import { describeRedacted } from '../shared/redact';
import { provisionParts, parseParts, UnknownPartError } from './parts';

async function main(): Promise<void> {
  const parts = parseParts(process.argv.slice(2));
  const config = loadConfig();
  const log = (line: string) => console.error(`[provision] ${line}`);
  const started = Date.now();
  const failures = await provisionParts(parts, { ...config, log }, (line) => console.log(line));
  for (const failure of failures) console.error(`${failure.part}: ${describeRedacted(failure.error)}`);
  if (failures.length > 0) process.exit(1);
  log(`${parts.join(', ')} provisioned in ${Math.round((Date.now() - started) / 1000)}s`);
}

main().catch((err) => {
  console.error(describeRedacted(err));
  process.exit(err instanceof UnknownPartError ? 2 : 1);
});
