/** Push notifications to a user's device (Firebase Cloud Messaging's HTTP v1 API, or anything speaking it). */
export interface PushMessage {
  /** the device's registration token (a secret of the user's device: never logged) */
  token: string
  title: string
  body: string
  /** string values only (FCM's rule) */
  data: Record<string, string>
}

/**
 * What became of one push:
 * - `sent`: FCM accepted it (`name` is its message id);
 * - `unregistered`: FCM says the token is not (or no longer) a valid registration token:
 *   forget it, trying again cannot help;
 * - `retry`: FCM is unavailable, overloaded, rate-limiting, or did not answer: try later;
 * - `refused`: any other refusal (a bad key, a wrong project, a message FCM will not take):
 *   trying again would fail the same way.
 */
export type PushOutcome =
  | { kind: 'sent'; name: string | null }
  | { kind: 'unregistered'; reason: string }
  | { kind: 'retry'; reason: string; retryAfterSeconds?: number }
  | { kind: 'refused'; status: number; reason: string }

export interface PushSender {
  send(message: PushMessage): Promise<PushOutcome>
}
