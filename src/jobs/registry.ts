/** Every module's background jobs, registered on the runner in one place. */
import type { JobRunner } from './runner'

export function registerJobs(runner: JobRunner) {
  // One line per module that has background work, e.g. `registerMailJobs(runner)`.
  return runner
}
