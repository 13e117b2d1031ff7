import { cp, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { buildWithHeartbeat } from './heartbeat';
import { run, type ProvisionLog } from './routes';

/** One `main` package to build, and the name its binary gets in the cache. */
export interface GoBinary {
  /** Package path inside the module, e.g. `cmd/server`. */
  pkg: string;
  /** File name in the target folder, e.g. `temporal-server`. */
  as: string;
}

/** What {@link goBuildInto} builds and copies. */
export interface GoBuild {
  /** Go module path, e.g. `go.temporal.io/server`. */
  module: string;
  /** Version without the `v`. */
  version: string;
  binaries: GoBinary[];
  /** Folders of the module copied next to the binaries: `{ from: 'schema/postgresql/v12', to: 'schema' }`. */
  copies?: { from: string; to: string }[];
  /**
   * `GOTOOLCHAIN` for every go command of the build, e.g. `go1.27.3` when the module's `go.mod`
   * asks for a newer Go than the installed one. @defaultValue the environment's (the installed Go)
   */
  toolchain?: string;
  /** Progress: which binary is being built, and a heartbeat while it builds. @defaultValue silent */
  log?: ProvisionLog;
  /**
   * Build as a dependency of a scratch module (`go get -tool <module>/<pkg>@v<version>`, then
   * `go build`) instead of `go install <pkg>@v<version>`, which refuses a module whose `go.mod` has
   * `replace` directives (Jaeger's). The module's own `replace`s are then ignored, as they are for
   * any dependency. @defaultValue false
   */
  asDependency?: boolean;
}

/**
 * Builds a module's binaries with `go install <module>/<pkg>@v<version>` and copies folders of the
 * module's source, into `targetDir`. Everything is built in a scratch folder that is renamed at
 * the end, so that an interrupted build never leaves half a cache behind.
 */
export async function goBuildInto(targetDir: string, build: GoBuild): Promise<void> {
  const parent = path.dirname(targetDir);
  await mkdir(parent, { recursive: true });
  const scratch = await mkdtemp(path.join(parent, `.build-${path.basename(targetDir)}-`));
  const env: NodeJS.ProcessEnv = { ...process.env, ...(build.toolchain ? { GOTOOLCHAIN: build.toolchain } : {}) };
  const toolchain = build.toolchain ? ` with GOTOOLCHAIN=${build.toolchain}` : '';
  const log = build.log ?? (() => {});
  try {
    if (build.asDependency) await buildAsDependency(scratch, build, env, toolchain, log);
    else await buildWithInstall(scratch, build, env, toolchain, log);
    if (build.copies?.length) {
      const info = JSON.parse(await run('go', ['mod', 'download', '-json', `${build.module}@v${build.version}`], { env })) as { Dir?: string; Error?: string };
      if (!info.Dir) throw new Error(`go mod download ${build.module}@v${build.version}: ${info.Error ?? 'no module folder'}`);
      for (const copy of build.copies) {
        const to = path.join(scratch, copy.to);
        await cp(path.join(info.Dir, copy.from), to, { recursive: true });
        // The module cache is read-only; the copy must stay removable by a later rebuild.
        await run('chmod', ['-R', 'u+w', to]);
      }
    }
    await rm(targetDir, { recursive: true, force: true });
    await rename(scratch, targetDir);
  } catch (err) {
    await rm(scratch, { recursive: true, force: true });
    throw err;
  }
}

async function buildWithInstall(scratch: string, build: GoBuild, env: NodeJS.ProcessEnv, toolchain: string, log: ProvisionLog): Promise<void> {
  const bin = path.join(scratch, '.bin');
  for (const [i, binary] of build.binaries.entries()) {
    const target = `${build.module}/${binary.pkg}@v${build.version}`;
    await buildWithHeartbeat(binary.as, `go install ${target}${toolchain} (${i + 1} of ${build.binaries.length})`, log, () =>
      run('go', ['install', target], { env: { ...env, GOBIN: bin } }),
    );
    await rename(path.join(bin, path.basename(binary.pkg)), path.join(scratch, binary.as));
  }
  await rm(bin, { recursive: true, force: true });
}

async function buildAsDependency(scratch: string, build: GoBuild, env: NodeJS.ProcessEnv, toolchain: string, log: ProvisionLog): Promise<void> {
  const mod = path.join(scratch, '.module');
  await mkdir(mod);
  await run('go', ['mod', 'init', 'durable-jobs-provision'], { env, cwd: mod });
  for (const [i, binary] of build.binaries.entries()) {
    const pkg = `${build.module}/${binary.pkg}`;
    await buildWithHeartbeat(binary.as, `go get -tool ${pkg}@v${build.version} && go build${toolchain} (${i + 1} of ${build.binaries.length})`, log, async () => {
      await run('go', ['get', '-tool', `${pkg}@v${build.version}`], { env, cwd: mod });
      await run('go', ['build', '-o', path.join(scratch, binary.as), pkg], { env, cwd: mod });
      return '';
    });
  }
  await rm(mod, { recursive: true, force: true });
}
