// The recorded histories of test/fixtures/histories, read once, and the bundle each replays against:
// the built-in workflows with the library's (as every worker bundles them), or the limits fixture's.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';

const dir = path.join(__dirname, '../fixtures/histories');

/** The limits fixture's job type (test/fixtures/limits), replayed against that fixture's bundle. */
export const limitsWorkflowTypes = ['tenantWorkWorkflow'];

interface History {
  events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
}

/** The fixture files, by name. */
export const fixtureFiles = readdirSync(dir).filter((f) => f.endsWith('.json'));
const histories = new Map(fixtureFiles.map((file) => [file, JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as History]));

/** A fixture's history, as `temporal workflow show -o json` wrote it. */
export const historyOf = (file: string): unknown => histories.get(file);

/** The workflow type a fixture's history started. */
export const workflowTypeOf = (file: string): string => histories.get(file)?.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';

/** The bundle of each fixture, built by `bundle` (which adds the library's workflows, as a worker does) for the built-in workflows and the limits fixture's. */
export async function replayBundles(bundle: (workflowsPath: string) => Promise<WorkflowBundleWithSourceMap>): Promise<(file: string) => WorkflowBundleWithSourceMap> {
  const builtIn = await bundle(require.resolve('../../src/workflows'));
  const limits = await bundle(require.resolve('../fixtures/limits/workflows'));
  return (file) => (limitsWorkflowTypes.includes(workflowTypeOf(file)) ? limits : builtIn);
}
