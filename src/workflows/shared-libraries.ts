// Preloaded once per workflow sandbox (WorkerOptions.bundlerOptions.preloadModules, see
// src/worker/tuning.ts) and shared by every workflow, instead of being evaluated again for each
// one. The SDK deep-freezes everything loaded here. Only stateless libraries whose objects still
// work frozen belong here: never a module with per-workflow state.
//
// zod is NOT here, although evaluating it for every workflow is most of the worker's CPU per job
// (docs/performance.md): frozen, its shared format regexes (email, ISO dates) throw on
// `lastIndex = 0` when a workflow parses a payload, which the dead-letter redrive does.
import * as fflate from 'fflate/browser';

/**
 * The preloaded libraries. Exported so that the bundler keeps them: fflate declares itself free of
 * side effects, so a bare `require` in the preload list would be dropped.
 */
export const sharedLibraries = [fflate] as const;
