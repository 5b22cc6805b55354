import { describe, expect, test } from 'bun:test'
import { lazyService } from '@/lib/lazy'

describe('lazyService', () => {
  test('loads the module on the first verb call, once, and passes the arguments and answers through', async () => {
    let loads = 0
    const service = lazyService(async () => {
      loads++
      await Bun.sleep(5)
      return { add: (a: number, b: number) => a + b, hello: async (name: string) => `hello ${name}`, VERSION: 3 }
    })
    expect(loads).toBe(0)
    const [sum, greeting] = await Promise.all([service.add(2, 3), service.hello('ada')])
    expect(sum).toBe(5)
    expect(greeting).toBe('hello ada')
    expect(await service.add(1, 1)).toBe(2)
    expect(loads).toBe(1)
  })

  test('a verb that throws rejects with its error; a failed load is tried again', async () => {
    let tries = 0
    const service = lazyService(async () => {
      if (++tries === 1) throw new Error('disk hiccup')
      return { fail: () => { throw new Error('refused') } }
    })
    await expect(service.fail()).rejects.toThrow('disk hiccup')
    await expect(service.fail()).rejects.toThrow('refused')
    expect(tries).toBe(2)
  })

  test('the handle is not a thenable, so awaiting it does not call the module', async () => {
    let loads = 0
    const service = lazyService(async () => {
      loads++
      return { ping: () => 'pong' }
    })
    expect(await service).toBe(service)
    expect(loads).toBe(0)
  })
})
