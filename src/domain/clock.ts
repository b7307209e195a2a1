/**
 * Milliseconds on a monotonic clock, for durations and deadlines measured in the process. Not
 * `performance.now()`: Node loads its performance module (perf_hooks) on the first read of that global, 1 to 2
 * ms of a command's start-up for a number process.hrtime gives as well.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
}
