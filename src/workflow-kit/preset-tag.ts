// Which preset an activity call runs under, carried on its options: the SDK copies the options'
// own enumerable properties, symbols included, into every call it schedules.

const presetTag = Symbol.for('durable-jobs.preset');

/** The options, tagged with the preset they were built from. */
export function withPresetTag<O extends object>(options: O, preset: string): O {
  return { ...options, [presetTag]: preset };
}

/** The preset these activity options were built from, when `jobActivities` built them. */
export function presetTagOf(options: object): string | undefined {
  const tag: unknown = (options as Record<symbol, unknown>)[presetTag];
  return typeof tag === 'string' ? tag : undefined;
}
