import type { WorkerOptions } from '@temporalio/worker';
import type { BreakerGate } from '../activity-kit/breaker-gate';
import type { DependencyPlan } from '../catalog/dependency-plan';

/**
 * The options of the worker of one dependency's queue: activities only, their slots handed out by
 * the dependency's gate (one at a time until an attempt succeeds), its rate enforced by the server
 * over all workers. Its breaker sets the queue's rate too while open (src/workflow-kit/breaker.ts).
 */
export function dependencyWorkerOptions(plan: DependencyPlan, gate: BreakerGate): Pick<WorkerOptions, 'taskQueue' | 'tuner' | 'maxTaskQueueActivitiesPerSecond' | 'activityTaskPollerBehavior'> {
  return {
    taskQueue: plan.taskQueue,
    // Each poll holds a slot it reserved, maybe while trusted: one poller bounds what a worker takes
    // at once when work arrives after the gate has closed to one (a poll returns one task, and the
    // next poll follows at once: a local server hands out hundreds a second that way).
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 1 },
    tuner: {
      activityTaskSlotSupplier: gate,
      // No workflow runs on a dependency's queue; the SDK asks for these all the same.
      workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
      localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
      nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
    },
    maxTaskQueueActivitiesPerSecond: plan.settings.rate,
  };
}
