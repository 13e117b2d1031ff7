import path from 'node:path';
import { cachePaths } from './cache';
import { goBuildInto } from './go-build';
import { firstExecutable, firstWorking, type ProvisionOptions, type Provided } from './routes';
import { versions } from './versions';

/**
 * Finds Jaeger (v2, the all-in-one binary) in the cache, or builds it with `go build` from the
 * Go module proxy (a cold build takes several minutes). Jaeger receives OTLP and answers queries
 * over HTTP: the tracing test's backend, and a local one for a developer (`npm run jaeger`).
 */
export async function provisionJaeger(options: ProvisionOptions): Promise<Provided<string>> {
  const paths = cachePaths(options.cacheDir);
  const log = options.log ?? (() => {});
  return firstWorking(
    'Jaeger',
    [
      { name: `cache (${paths.jaegerDir})`, attempt: () => firstExecutable([paths.jaeger]) },
      {
        name: `go build ${versions.jaegerModule}/cmd/jaeger@v${versions.jaeger}`,
        attempt: async () => {
          log(`building Jaeger (v${versions.jaeger} of its Go module) with go build (a cold build takes several minutes)…`, 'info');
          // Its go.mod has a replace directive, which go install refuses: built as a dependency.
          await goBuildInto(paths.jaegerDir, { module: versions.jaegerModule, version: versions.jaeger, log, asDependency: true, binaries: [{ pkg: 'cmd/jaeger', as: path.basename(paths.jaeger) }] });
          return firstExecutable([paths.jaeger]);
        },
      },
    ],
    log,
  );
}
