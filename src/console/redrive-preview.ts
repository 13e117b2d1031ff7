// What a redrive of a selection would do, read before anything restarts: how many jobs and which,
// the ledger's record of each one's failed execution (the first few, for a big selection: see
// src/client/redrive-plan.ts), and whether a patch passes the job type's schema for every one of
// them (the DLQ client's own check, as `jobctl dlq redrive --patch` runs it).
import { entrySensitive, maskEntry } from '../client/masked-entry';
import { maskSensitive } from '../catalog/sensitive';
import { InvalidPayloadError, describeError, type FieldIssue } from '../shared/errors';
import { mergePatch } from '../shared/merge-patch';
import { readRedrivePlan, type RedrivePlan } from '../client/redrive-plan';
import type { DeadLetterEntry } from '../workflow-kit/dead-letter-entries';
import type { ConsoleDeps } from './context';
import type { PatchInput } from './form-input';
import type { ConsoleSelection } from './selection';

/** IDs a preview lists; the rest are counted. */
export const previewIdLimit = 100;

/** Jobs of a selection whose ledger plan a preview reads. */
export const previewPlanLimit = 5;

/** How a patch fared against the selection. */
export interface PatchCheck {
  input: PatchInput;
  /** Whether every selected entry's patched payload passed (true without a patch). */
  ok: boolean;
  /** The entry shown: the first one the schema refused, else the first one. */
  entryId?: string;
  /** That entry's payload with the patch applied (validated when `ok`). */
  payload?: unknown;
  /** The schema's issues with that payload, each at its field's path. */
  issues: FieldIssue[];
  /** Why the patch could not be checked at all: not JSON, or no catalog to check it against. */
  error?: string;
}

/** A redrive preview. */
export interface RedrivePreview {
  /** The selection, its `failedBefore` pinned to when the preview was read, so a redrive from it acts on what was shown. */
  selection: ConsoleSelection;
  count: number;
  /** The first {@link previewIdLimit} IDs, oldest failure first. */
  ids: string[];
  /** The first entry (for the payload shown without a patch). */
  first?: DeadLetterEntry;
  plans: RedrivePlan[];
  patch: PatchCheck;
}

/** Reads the preview of redriving `selection` with `patch`: one pass over the selected entries. */
export async function readRedrivePreview(deps: Pick<ConsoleDeps, 'jobs' | 'db'>, selection: ConsoleSelection, patch: PatchInput): Promise<RedrivePreview> {
  const pinned: ConsoleSelection = { ...selection, failedBefore: selection.failedBefore ?? new Date().toISOString() };
  const value = 'value' in patch ? patch.value : undefined;
  const check: PatchCheck = { input: patch, ok: !('error' in patch), issues: [], ...('error' in patch ? { error: patch.error } : {}) };
  const ids: string[] = [];
  const planned: DeadLetterEntry[] = [];
  let count = 0;
  let refused: DeadLetterEntry | undefined;
  for await (const entry of deps.jobs.deadLetters.entries({ ...pinned, status: 'dead-lettered' })) {
    count += 1;
    if (ids.length < previewIdLimit) ids.push(entry.id);
    if (planned.length < (selection.id === undefined ? previewPlanLimit : 1)) planned.push(entry);
    if (value === undefined || !check.ok) continue;
    try {
      deps.jobs.deadLetters.patchedPayload(entry, value);
    } catch (err) {
      check.ok = false;
      if (err instanceof InvalidPayloadError) {
        refused = entry;
        check.issues = err.issues;
      } else check.error = `patch: ${describeError(err)}`;
    }
  }
  const shown = refused ?? planned[0];
  if (value !== undefined && shown) {
    check.entryId = shown.id;
    // Shown field by field: its sensitive fields masked, as everywhere.
    check.payload = maskSensitive(check.ok ? deps.jobs.deadLetters.patchedPayload(shown, value) : mergePatch(shown.payload, value), entrySensitive(shown, deps.jobs.catalog));
  }
  const plans = await Promise.all(planned.map((e) => readRedrivePlan(deps.jobs, deps.db, e)));
  return { selection: pinned, count, ids, first: planned[0] && maskEntry(planned[0], deps.jobs.catalog), plans, patch: check };
}
