// Preloaded once per workflow sandbox (WorkerOptions.bundlerOptions.preloadModules, see
// src/worker/tuning.ts) and shared by every workflow, instead of being evaluated again for each
// one. The SDK deep-freezes what is preloaded, and the sandbox's globals, once this has run. Only
// stateless libraries belong here: never a module with per-workflow state.
import * as fflate from 'fflate/browser';
import * as zod from 'zod';

// zod sets its default locale (first schema) and memoizer (first object or array) in a global
// lazily; building both kinds now does that before the globals are frozen (later, it would throw
// "object is not extensible").
zod.object({ warm: zod.array(zod.string()) }).safeParse({ warm: [] });

/**
 * The preloaded libraries. Exported so that the bundler keeps them: both declare themselves free of
 * side effects, so a bare `require` in the preload list would be dropped.
 */
export const sharedLibraries = [zod, fflate] as const;
