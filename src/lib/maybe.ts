/**
 * A value now or a promise of it, for hot paths whose work is synchronous most of the time (the
 * credential read on a local file is one native call) but not always (a server, a replica): the
 * synchronous case passes its value on with no promise made and no turn of the event loop.
 */
export type Maybe<T> = T | Promise<T>

/** `f` applied to the value, at once when there is one, or when the promise settles. */
export function andThen<T, U>(value: Maybe<T>, f: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(f) : f(value)
}
