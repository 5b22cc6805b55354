import { randomBytes } from 'node:crypto'

export const newId = (): string => crypto.randomUUID()
export const isUuid = (v: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(v)
/** Public tenant API key: not a secret, but unguessable so ids cannot be enumerated. */
export const newApiKey = () => `pk_${randomBytes(18).toString('base64url')}`
export const newApiSecret = () => `sk_${randomBytes(32).toString('base64url')}`
