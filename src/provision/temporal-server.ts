import { access } from 'node:fs/promises';
import path from 'node:path';
import { cachePaths } from './cache';
import { goBuildInto } from './go-build';
import { assertExecutable, firstWorking, type ProvisionOptions, type Provided, type Route } from './routes';
import { versions } from './versions';

/** The parts of the native Temporal cluster that come from the server's Go module. */
export interface TemporalServerParts {
  /** The server binary: `temporal-server --root R --config C --env E --allow-no-auth start`. */
  server: string;
  /** The schema tool, as the admin-tools image names it (`temporal-sql-tool`). */
  sqlTool: string;
  /** The module's `schema/postgresql/v12` (`temporal/versioned`, `visibility/versioned`). */
  schemaDir: string;
}

/** The parts of the Temporal Web UI server. */
export interface TemporalUiParts {
  /** The UI server binary: `ui-server --root R --env docker start`. */
  uiServer: string;
  /** Its root: holds `config/docker.yaml`, the templated config of the `temporalio/ui` image. */
  root: string;
}

async function cached<T extends object>(parts: T, files: string[]): Promise<T> {
  for (const file of files) {
    if (file.endsWith('/')) await access(file).catch(() => Promise.reject(new Error('not cached yet')));
    else await assertExecutable(file).catch(() => Promise.reject(new Error('not cached yet')));
  }
  return parts;
}

/**
 * Finds the Temporal server, its schema tool and the PostgreSQL schema in the cache, or builds
 * them with `go install` from the Go module proxy (a cold build takes several minutes), with
 * `GOTOOLCHAIN` set to the toolchain its `go.mod` needs.
 */
export async function provisionTemporalServer(options: ProvisionOptions): Promise<Provided<TemporalServerParts>> {
  const paths = cachePaths(options.cacheDir);
  const log = options.log ?? (() => {});
  const parts: TemporalServerParts = { server: paths.temporalServer, sqlTool: paths.temporalSqlTool, schemaDir: paths.temporalSchema };
  const routes: Route<TemporalServerParts>[] = [
    { name: `cache (${paths.temporalServerDir})`, attempt: () => cached(parts, [parts.server, parts.sqlTool, `${parts.schemaDir}/`]) },
    {
      name: `go install ${versions.temporalServerModule}/cmd/{server,tools/sql}@v${versions.temporalServer}`,
      attempt: async () => {
        log(`building the Temporal server v${versions.temporalServer} and its schema tool with go install (a cold build takes several minutes)…`, 'info');
        await goBuildInto(paths.temporalServerDir, {
          module: versions.temporalServerModule,
          version: versions.temporalServer,
          toolchain: versions.temporalServerGoToolchain,
          log,
          binaries: [
            { pkg: 'cmd/server', as: path.basename(paths.temporalServer) },
            { pkg: 'cmd/tools/sql', as: path.basename(paths.temporalSqlTool) },
          ],
          copies: [{ from: versions.temporalSchemaDir, to: path.basename(paths.temporalSchema) }],
        });
        return cached(parts, [parts.server, parts.sqlTool, `${parts.schemaDir}/`]);
      },
    },
  ];
  return firstWorking('Temporal server', routes, log);
}

/** Finds the Temporal UI server in the cache, or builds it with `go install` (its module embeds the UI build). */
export async function provisionTemporalUi(options: ProvisionOptions): Promise<Provided<TemporalUiParts>> {
  const paths = cachePaths(options.cacheDir);
  const log = options.log ?? (() => {});
  const parts: TemporalUiParts = { uiServer: path.join(paths.temporalUiDir, 'ui-server'), root: paths.temporalUiDir };
  const configDir = `${path.join(paths.temporalUiDir, 'config')}/`;
  const routes: Route<TemporalUiParts>[] = [
    { name: `cache (${paths.temporalUiDir})`, attempt: () => cached(parts, [parts.uiServer, configDir]) },
    {
      name: `go install ${versions.temporalUiModule}/cmd/server@v${versions.temporalUi}`,
      attempt: async () => {
        log(`building the Temporal UI server v${versions.temporalUi} with go install…`, 'info');
        await goBuildInto(paths.temporalUiDir, {
          module: versions.temporalUiModule,
          version: versions.temporalUi,
          log,
          binaries: [{ pkg: 'cmd/server', as: 'ui-server' }],
          copies: [{ from: 'config', to: 'config' }],
        });
        return cached(parts, [parts.uiServer, configDir]);
      },
    },
  ];
  return firstWorking('Temporal UI server', routes, log);
}
