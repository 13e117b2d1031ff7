import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../helpers/env';

// The layer rules of .dependency-cruiser.cjs, each shown to fire: a copy of the sources gets one
// probe module per rule that breaks it (and a few that must pass), and one cruise of the copy must
// report exactly the expected rule for each probe. A rule whose path stopped matching anything
// (after a move, a typo in a regex) fails here instead of passing silently in `npm run lint`.

interface Probe {
  /** The probe module, relative to the copy's root. */
  file: string;
  /** Its contents. */
  source: string;
  /** The rule it must break; undefined for a probe that breaks none. */
  rule?: string | string[];
  /** Appended to an existing module instead of written as a new one. @defaultValue false */
  append?: boolean;
}

const probes: Probe[] = [
  { file: 'src/client/probe-cycle-a.ts', source: "import type { B } from './probe-cycle-b';\nexport type A = B;\n", rule: 'no-circular' },
  { file: 'src/client/probe-cycle-b.ts', source: "import type { A } from './probe-cycle-a';\nexport type B = A | 1;\n", rule: 'no-circular' },
  { file: 'src/client/probe-built-in.ts', source: "import { catalog } from '../jobs/catalog';\nexport const c = catalog;\n", rule: ['core-not-to-built-ins', 'folder-layers'] },
  { file: 'src/worker/probe-built-in.ts', source: "import type { Activities } from '../activities';\nexport type A = Activities;\n", rule: ['core-not-to-built-ins', 'folder-layers'] },
  // The worker's entry points load the built-in catalog and worker through package.json, never by import.
  { file: 'src/dev/start.ts', source: "\nimport '../app/worker';\n", append: true, rule: ['core-not-to-built-ins', 'folder-layers'] },
  { file: 'src/db/probe-built-in.ts', source: "import type { Db } from '../jobs/database/schema';\nexport type D = Db;\n", rule: ['core-not-to-built-ins', 'folder-layers'] },
  { file: 'src/cluster/probe-built-in.ts', source: "import { catalog } from '../jobs/catalog';\nexport const c = catalog;\n" },
  { file: 'bench/probe-built-in.ts', source: "import { catalog } from '../src/jobs/catalog';\nexport const c = catalog;\n" },
  { file: 'src/worker/probe-tooling.ts', source: "import '../cluster/ports';\n", rule: ['core-not-to-app-tooling', 'folder-layers'] },
  { file: 'src/activities/probe-client.ts', source: "import '../client';\n", rule: 'activities-not-to-client' },
  { file: 'src/activities/probe-internal.ts', source: "import { describeError } from '../shared/errors';\nexport const d = describeError;\n", rule: 'built-ins-through-public-entry-points' },
  { file: 'src/activities/probe-entry.ts', source: "import { describeError } from '../activity-kit';\nexport const d = describeError;\n" },
  { file: 'src/activity-kit/probe-client.ts', source: "import type { JobRecord } from '../client/job-record';\nexport type R = JobRecord;\n", rule: ['activities-not-to-client', 'folder-layers'] },
  { file: 'src/shared/probe-up.ts', source: "import type { JobDefinition } from '../catalog/define-job';\nexport type D = JobDefinition;\n", rule: ['shared-is-the-bottom-layer', 'folder-layers'] },
  { file: 'src/workflows/probe-process.ts', source: "import '../client';\n", rule: 'workflow-code-not-to-process-modules' },
  { file: 'src/jobs/probe-process.ts', source: "import { loadConfig } from '../worker';\nexport const l = loadConfig;\n", rule: 'workflow-code-not-to-process-modules' },
  { file: 'src/workflows/probe-activities.ts', source: "import { createActivities } from '../activities';\nexport const c = createActivities;\n", rule: 'workflow-code-activities-as-types' },
  { file: 'src/workflow-kit/probe-activity.ts', source: "import { whileHeartbeating } from '../activity-kit/heartbeat';\nexport const w = whileHeartbeating;\n", rule: 'workflow-code-activities-as-types' },
  { file: 'src/workflows/probe-activities-types.ts', source: "import type { Activities } from '../activities';\nimport { type ActivityDeps } from '../activities';\nexport type A = [Activities, ActivityDeps];\n" },
  { file: 'src/jobs/probe-zod.ts', source: "import { z } from 'zod';\nexport const s = z.string();\n", rule: 'workflow-code-no-eager-heavy-modules' },
  { file: 'src/jobs/probe-zod-type.ts', source: "import type { z } from 'zod';\nexport type S = z.ZodString;\n" },
  { file: 'src/workflow-kit/probe-fflate.ts', source: "import { unzlibSync } from 'fflate';\nexport const u = unzlibSync;\n", rule: 'workflow-code-no-eager-heavy-modules' },
  { file: 'src/workflow-kit/lazy-modules.ts', source: "\nimport { z } from 'zod';\nexport const probeZod = z;\n", append: true, rule: 'workflow-lazy-modules-fflate-only' },
  { file: 'src/workflows/probe-payload.ts', source: "import { sendEmailPayload } from '../jobs/payloads/send-email';\nexport const p = sendEmailPayload;\n", rule: 'workflow-code-no-eager-heavy-modules' },
  { file: 'src/workflows/probe-built-in-catalog.ts', source: "import { catalog } from '../jobs/catalog';\nexport const c = catalog;\n", rule: 'workflow-code-no-eager-heavy-modules' },
  { file: 'src/workflows/probe-built-in-worker.ts', source: "import { worker } from '../app/worker';\nexport const w = worker;\n", rule: ['workflow-code-no-eager-heavy-modules', 'folder-layers'] },
  { file: 'src/workflows/probe-node.ts', source: "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", rule: 'workflow-code-no-node-built-ins' },
  // Workflow code by name (the rules list it), not by folder.
  { file: 'src/catalog/task-queues.ts', source: "\nimport { cpus } from 'node:os';\nexport const probeCpus = cpus;\n", append: true, rule: 'workflow-code-no-node-built-ins' },
  { file: 'src/catalog/probe-unresolvable.ts', source: "import './no-such-module';\n", rule: 'not-to-unresolvable' },
  // Folders in layers: an import up the layers (the client below the console, since 0.3 the other way round), and a folder with no layer.
  { file: 'src/client/probe-folder-up.ts', source: "import type { RunningConsole } from '../console/server';\nexport type C = RunningConsole;\n", rule: 'folder-layers' },
  { file: 'src/testing/probe-folder-across.ts', source: "import type { UsageError } from '../jobctl/cli-support';\nexport type U = UsageError;\n", rule: 'folder-layers' },
  { file: 'src/probe-folder/probe.ts', source: "import { describeError } from '../shared/errors';\nexport const d = describeError;\n", rule: 'folder-in-a-layer' },
];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  /** For a cycle, reported once: the modules in it. */
  cycle?: { name: string }[];
}

/** Whether a violation is about `file`: it imports the culprit, or it is in the cycle. */
const concerns = (v: Violation, file: string) => v.from === file || !!v.cycle?.some((m) => m.name === file);

describe('the layer rules (.dependency-cruiser.cjs)', function () {
  this.timeout(60_000);
  let dir: string;
  let violations: Violation[];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'layering-'));
    for (const entry of ['src', 'bench', 'tsconfig.json', 'package.json', '.dependency-cruiser.cjs']) cpSync(path.join(repoRoot, entry), path.join(dir, entry), { recursive: true });
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    for (const probe of probes) {
      mkdirSync(path.dirname(path.join(dir, probe.file)), { recursive: true });
      writeFileSync(path.join(dir, probe.file), probe.source, { flag: probe.append ? 'a' : 'w' });
    }
    const depcruise = path.join(repoRoot, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
    const run = await promisify(execFile)(process.execPath, [depcruise, 'src', 'bench', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).catch(
      // depcruise exits non-zero when it finds violations, which this test wants.
      (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
    );
    violations = (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds nothing in the sources as they are, but what the probes add', () => {
    const probeFiles = new Set(probes.map((p) => p.file));
    assert.deepEqual(violations.filter((v) => ![...probeFiles].some((file) => concerns(v, file))), []);
  });

  for (const probe of probes) {
    it(`${probe.file}: ${probe.rule ? [probe.rule].flat().join(' and ') : 'breaks no rule'}`, () => {
      const found = [...new Set(violations.filter((v) => concerns(v, probe.file)).map((v) => v.rule.name))].sort();
      assert.deepEqual(found, probe.rule ? [probe.rule].flat().sort() : []);
    });
  }
});
