/** The notifications module's job topic and its jobs (a leaf: the job registration, notify.ts and push.ts import it). */
export const PUSH_TOPIC = 'notifications.push'

/** One attempt at pushing a notification: the first has the id `push:<notification id>`, so a notification is scheduled once. */
export const pushJob = (tenantId: string, notificationId: string, attempt: number, runAt: number) =>
  ({ id: attempt === 1 ? `push:${notificationId}` : `push:${notificationId}:${attempt}`, topic: PUSH_TOPIC, tenantId, payload: { notificationId, attempt }, runAt })
