/**
 * The calling thread's own CPU time, exact to the nanosecond: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`
 * through bun:ffi (Linux, glibc). For timing one step of one request on the JavaScript thread.
 *
 * Not `/proc/self/task/<tid>/schedstat` nor `process.threadCpuUsage()` for that: both read the
 * scheduler's running total as of the thread's last tick or switch, which lags by up to a tick.
 * Over a round of hundreds of requests the lag does not matter (inproc.ts uses schedstat so);
 * around one short step it does: a step during which the thread is switched out (a call that
 * wakes a pool thread on a busy machine, as argon2's `hash` does) is charged with everything the
 * thread ran since its last tick. That is how a 40 µs call once measured 620–770 µs.
 */
import { dlopen, FFIType, ptr } from 'bun:ffi'

const CLOCK_THREAD_CPUTIME_ID = 3
const libc = dlopen('libc.so.6', { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } })
const timespec = new BigInt64Array(2)
const at = ptr(timespec)

/** The calling thread's CPU time so far, in µs. */
export function threadMicros(): number {
  if (libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, at) !== 0) throw new Error('clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed')
  return Number(timespec[0]) * 1e6 + Number(timespec[1]) / 1000
}
