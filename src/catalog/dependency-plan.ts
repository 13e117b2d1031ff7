// The dependencies a catalog's presets name, checked and planned: one task queue and one breaker
// per dependency, whatever job types call it. Used by the catalog (its problems), the worker (its
// queues) and jobctl (the breakers to show).
import type { ActivityPreset, JobDefinition } from './define-job';
import { defaultBreaker, dependencyNamePattern, dependencyQueue, type BreakerSettings, type JobDependency } from './dependency';
import type { CatalogProblem } from './preset-problems';
import { msToNumber } from '../shared/sdk-internals';

/** One dependency of a catalog: its queue, the types whose steps call it, its settings. */
export interface DependencyPlan {
  name: string;
  taskQueue: string;
  types: string[];
  concurrency: number;
  settings: BreakerSettings;
}

/** The breaker settings of a dependency, its defaults applied (durations in ms). */
export function breakerSettings(d: JobDependency): BreakerSettings {
  const b = d.breaker ?? {};
  return {
    failures: b.failures ?? defaultBreaker.failures,
    windowMs: msToNumber(b.window ?? defaultBreaker.window),
    coolDownMs: msToNumber(b.coolDown ?? defaultBreaker.coolDown),
    maxCoolDownMs: msToNumber(b.maxCoolDown ?? defaultBreaker.maxCoolDown),
    ...(d.rate === undefined ? {} : { rate: d.rate }),
    ...(d.countErrorTypes === undefined ? {} : { countErrorTypes: [...d.countErrorTypes] }),
  };
}

function presetsOf(d: JobDefinition): [string, ActivityPreset][] {
  return Object.entries((d.presets ?? {}) as Record<string, ActivityPreset>);
}

/** The dependencies of these job types, one plan each, in the order first named. */
export function planDependencies(sharedQueue: string, definitions: readonly JobDefinition[]): DependencyPlan[] {
  const plans = new Map<string, DependencyPlan>();
  for (const d of definitions) {
    for (const [, preset] of presetsOf(d)) {
      const dep = preset?.dependency;
      if (!dep) continue;
      const plan = plans.get(dep.name);
      if (plan) {
        if (!plan.types.includes(d.type)) plan.types.push(d.type);
        continue;
      }
      plans.set(dep.name, { name: dep.name, taskQueue: dependencyQueue(sharedQueue, dep.name), types: [d.type], concurrency: dep.concurrency ?? 100, settings: breakerSettings(dep) });
    }
  }
  return [...plans.values()];
}

const positive = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0;

function durationOk(value: unknown): boolean {
  try {
    return positive(msToNumber(value as Parameters<typeof msToNumber>[0]));
  } catch {
    return false;
  }
}

/** What is wrong with the dependencies the presets name: each declaration, and two that differ under one name. */
export function dependencyProblems(definitions: readonly JobDefinition[], at: (index: number) => string): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const seen = new Map<string, { json: string; path: string }>();
  definitions.forEach((d, i) => {
    for (const [name, preset] of presetsOf(d)) {
      const dep = preset?.dependency;
      if (dep === undefined) continue;
      const p = `${at(i)}.presets.${name}.dependency`;
      if (typeof dep !== 'object' || dep === null || typeof dep.name !== 'string' || !dependencyNamePattern.test(dep.name)) {
        problems.push({ path: `${p}.name`, message: 'must be 1 to 63 letters, digits, - and _, starting with a letter or digit' });
        continue;
      }
      if (d.activity === 'local') problems.push({ path: p, message: `a dependency's steps run on its own task queue, which local activities cannot: declare activity: 'regular' for ${d.type}` });
      if (dep.concurrency !== undefined && !(Number.isInteger(dep.concurrency) && dep.concurrency >= 1)) problems.push({ path: `${p}.concurrency`, message: 'must be a whole number of at least 1' });
      if (dep.rate !== undefined && !positive(dep.rate)) problems.push({ path: `${p}.rate`, message: 'must be a number of attempts per second, more than 0' });
      if (dep.countErrorTypes !== undefined && !(Array.isArray(dep.countErrorTypes) && dep.countErrorTypes.every((t) => typeof t === 'string' && t.length > 0))) {
        problems.push({ path: `${p}.countErrorTypes`, message: 'must be a list of error types' });
      }
      const b = dep.breaker ?? {};
      if (b.failures !== undefined && !(Number.isInteger(b.failures) && b.failures >= 1)) problems.push({ path: `${p}.breaker.failures`, message: 'must be a whole number of at least 1' });
      for (const key of ['window', 'coolDown', 'maxCoolDown'] as const) {
        if (b[key] !== undefined && !durationOk(b[key])) problems.push({ path: `${p}.breaker.${key}`, message: "must be a duration of more than 0, such as '30s' or '5m'" });
      }
      const json = JSON.stringify({ ...dep, countErrorTypes: dep.countErrorTypes ? [...dep.countErrorTypes].sort() : undefined });
      const earlier = seen.get(dep.name);
      if (!earlier) seen.set(dep.name, { json, path: p });
      else if (earlier.json !== json) problems.push({ path: p, message: `declares dependency ${dep.name} differently from ${earlier.path}: declare it once (a const) and name it in both presets` });
    }
  });
  return problems;
}
