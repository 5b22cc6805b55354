import { randomBytes } from 'node:crypto'

/**
 * A row's id: a UUID of version 7 (RFC 9562), the time in milliseconds (48 bits) then 74 random bits,
 * made from `crypto.randomUUID`'s random part. Ids made later sort later, so a new row's entry in the
 * index of its id lands on the index's last page, beside the rows made just before it, not on a page
 * of its own somewhere in the index (a version 4 id is random throughout). A write transaction then
 * changes a few pages, not one per index per row: what a server's WAL logs, what it serves to every
 * embedded replica and what each replica applies (docs/benchmarks.md, "Writes across topologies").
 * Still unguessable (74 random bits); the id tells when its row was made, which every resource's
 * `createdAt` tells already.
 */
export const newId = (): string => {
  const ms = Date.now().toString(16).padStart(12, '0')
  // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: the first 12 digits become the time, the version digit 7
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${crypto.randomUUID().slice(15)}`
}
export const isUuid = (v: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(v)
/** Public tenant API key: not a secret, but unguessable so ids cannot be enumerated. */
export const newApiKey = () => `pk_${randomBytes(18).toString('base64url')}`
export const newApiSecret = () => `sk_${randomBytes(32).toString('base64url')}`
