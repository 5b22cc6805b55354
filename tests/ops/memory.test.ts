import { describe, expect, test } from 'bun:test'
import { loadConfig } from '@/config'
import { ENGINE_RAM_DEFAULT_MIB } from '@/lib/engine-memory'
import { lazy } from '@/lib/lazy'
import { environOf, startProcess } from '@tests/helpers/process'

describe('the engine memory hint (ENGINE_RAM_MIB)', () => {
  const MiB = 1024 * 1024

  test('with ENGINE_RAM_MIB set, the server restarts itself, under the same process id, with the engine told that figure', async () => {
    const p = await startProcess([process.execPath, 'src/index.ts'], { env: { ENGINE_RAM_MIB: '192' } })
    try {
      expect(environOf(p.proc.pid).BUN_JSC_forceRAMSize).toBe(String(192 * MiB))
      expect((await fetch(`${p.url}/health`)).status).toBe(200)
    } finally {
      await p.stop()
    }
    const small = await startProcess([process.execPath, 'src/index.ts'], { env: { ENGINE_RAM_MIB: '96' } })
    try {
      expect(environOf(small.proc.pid).BUN_JSC_forceRAMSize).toBe(String(96 * MiB))
    } finally {
      await small.stop()
    }
  })

  test('by default (ENGINE_RAM_MIB unset or 0) the engine keeps the machine\'s RAM; an operator\'s own BUN_JSC_forceRAMSize is kept', async () => {
    for (const env of [{}, { ENGINE_RAM_MIB: '0' }] as Array<Record<string, string>>) {
      const off = await startProcess([process.execPath, 'src/index.ts'], { env })
      try {
        expect(environOf(off.proc.pid).BUN_JSC_forceRAMSize).toBeUndefined()
        expect((await fetch(`${off.url}/health`)).status).toBe(200)
      } finally {
        await off.stop()
      }
    }
    const own = await startProcess([process.execPath, 'src/index.ts'], { env: { BUN_JSC_forceRAMSize: String(300 * MiB), ENGINE_RAM_MIB: '64' } })
    try {
      expect(environOf(own.proc.pid).BUN_JSC_forceRAMSize).toBe(String(300 * MiB))
    } finally {
      await own.stop()
    }
  })

  test('a bad ENGINE_RAM_MIB is a configuration error at start, not a restart loop; commands such as --help ignore it', () => {
    const bad = Bun.spawnSync([process.execPath, 'src/index.ts'], { env: { ...process.env, ENGINE_RAM_MIB: 'lots', DATABASE_URL: ':memory:', PORT: '0' }, stderr: 'pipe', timeout: 20_000 })
    expect(bad.exitCode).toBe(1)
    expect(bad.stderr.toString()).toContain('ENGINE_RAM_MIB')
    const help = Bun.spawnSync([process.execPath, 'src/index.ts', '--help'], { env: { ...process.env, ENGINE_RAM_MIB: 'lots' }, timeout: 20_000 })
    expect(help.exitCode).toBe(0)
  })

  test('ENGINE_RAM_MIB defaults to 0 (the engine\'s own pacing) and is validated', () => {
    expect(loadConfig({}).engineRamMib).toBe(0)
    expect(ENGINE_RAM_DEFAULT_MIB).toBe(0)
    expect(loadConfig({ ENGINE_RAM_MIB: '0' }).engineRamMib).toBe(0)
    expect(() => loadConfig({ ENGINE_RAM_MIB: '-1' })).toThrow(/ENGINE_RAM_MIB/)
    expect(() => loadConfig({ ENGINE_RAM_MIB: 'lots' })).toThrow(/ENGINE_RAM_MIB/)
    expect(() => loadConfig({ ENGINE_RAM_MIB: '9999999' })).toThrow(/ENGINE_RAM_MIB/)
  })
})

describe('lazy modules', () => {
  test('one load for concurrent first calls, shared after', async () => {
    let loads = 0
    const get = lazy(async () => {
      loads++
      await Bun.sleep(5)
      return { n: loads }
    })
    const [a, b] = await Promise.all([get(), get()])
    expect(a).toBe(b)
    expect(await get()).toBe(a)
    expect(loads).toBe(1)
  })

  test('a failed load is tried again on the next call', async () => {
    let tries = 0
    const get = lazy(async () => {
      if (++tries === 1) throw new Error('disk hiccup')
      return 'loaded'
    })
    await expect(get()).rejects.toThrow('disk hiccup')
    expect(await get()).toBe('loaded')
    expect(tries).toBe(2)
  })
})
