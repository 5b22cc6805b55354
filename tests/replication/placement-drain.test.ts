/**
 * Which databases a worker pass drains when tenants are placed (src/db/placement, docs/scaling.md):
 * every database at a sweep, then only those where a job was scheduled lately, each for
 * HINT_TTL_MS after its last hint; the next sweep comes SWEEP_INTERVAL_MS after the last.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openDatabase, type Database } from '@/db/client'
import { applyMigrations } from '@/db/migrate'
import { HINT_TTL_MS, Placement, SWEEP_INTERVAL_MS } from '@/db/placement'
import { scopes } from '@/db/placement/scope'

let control: Database
let a: Database
let b: Database
let placement: Placement

beforeAll(async () => {
  const opened = await Promise.all([0, 1, 2].map(() => openDatabase({ url: ':memory:', migrate: applyMigrations })))
  ;[control, a, b] = [opened[0]!, opened[1]!, opened[2]!]
  placement = new Placement(control, new Map([['http://a.localhost:1', a], ['http://b.localhost:1', b]]), {
    'tenant-a': { url: 'http://a.localhost:1' }, 'tenant-b': { url: 'http://b.localhost:1' },
  })
})
afterAll(() => [control, a, b].forEach((d) => d?.close()))

const keys = (now: number) => placement.toDrain(now).map((s) => s.key)

describe('the worker drains placed databases from hints, with a slow full sweep', () => {
  test('a sweep takes every database; between sweeps, only hinted ones for HINT_TTL_MS', async () => {
    const t0 = 1_000_000
    expect(keys(t0)).toEqual(['control', 'http://a.localhost:1', 'http://b.localhost:1'])
    expect(keys(t0 + 100)).toEqual([])
    // a job scheduled while a request works in tenant b's database
    await placement.scopeOf('http://b.localhost:1').run(async () => placement.hint(t0 + 200))
    expect(keys(t0 + 300)).toEqual(['http://b.localhost:1'])
    expect(keys(t0 + 200 + HINT_TTL_MS)).toEqual(['http://b.localhost:1'])
    expect(keys(t0 + 201 + HINT_TTL_MS)).toEqual([])
    // the next sweep
    expect(keys(t0 + SWEEP_INTERVAL_MS)).toEqual(['control', 'http://a.localhost:1', 'http://b.localhost:1'])
  })

  test('a job runs in the scope of the database it was claimed from; an unknown key is the control database', async () => {
    const seen = async (key: string) => placement.scopeOf(key).run(async () => scopes.getStore()?.database)
    expect(await seen('http://a.localhost:1')).toBe(a)
    expect(await seen('control')).toBe(control)
    expect(await seen('http://gone.localhost:1')).toBe(control)
    expect(placement.forTenant('tenant-b')).toBe(b)
    expect(placement.forTenant('not-placed')).toBe(control)
    expect(placement.forTenant(null)).toBe(control)
  })
})
