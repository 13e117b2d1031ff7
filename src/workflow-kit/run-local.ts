// What a workflow run keeps for itself across the library's workflow modules (its job state, its
// pause, its slot). The worker loads those modules once per workflow sandbox and shares them
// between the workflows the sandbox runs (the SDK's preloadModules, src/worker/library-parts.ts),
// so a variable at module scope would be every run's at once. The sandbox's globals are per run:
// the SDK gives each workflow its own set and swaps them in before it runs that workflow's code
// (where it keeps the workflow's own activator). A run's values live there. Workflow code.

/** The global under which a run keeps its values. */
const globalKey = '__durableJobsRunLocals';

type Values = Record<string, unknown>;

function runValues(): Values {
  const scope = globalThis as typeof globalThis & { [globalKey]?: Values };
  return (scope[globalKey] ??= {});
}

/** One value of the running workflow's own, under a name unique among the library's modules. */
export class RunLocal<T> {
  constructor(private readonly name: string) {}

  /** This run's value, if it set one. */
  get(): T | undefined {
    return runValues()[this.name] as T | undefined;
  }

  /** Sets (or, with `undefined`, clears) this run's value. */
  set(value: T | undefined): void {
    runValues()[this.name] = value;
  }
}
