/**
 * `promise`, or a rejection with `message` after `ms`: for a call whose answer stops mattering
 * after a while. The call itself goes on (its late rejection is swallowed); only the wait ends.
 */
export function bounded<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
