/** Time comes from here so tests can move it. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  constructor(private t = Date.now()) {}
  now() {
    return this.t
  }
  advance(ms: number) {
    this.t += ms
  }
  set(ms: number) {
    this.t = ms
  }
}

export const unixSeconds = (ms: number) => Math.floor(ms / 1000)
export const iso = (ms: number) => new Date(ms).toISOString()
