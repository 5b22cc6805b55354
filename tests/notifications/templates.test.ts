/** The words of notifications: exact amounts from integer text, Italian decimal commas, and text for what is missing. */
import { describe, expect, test } from 'bun:test'
import { renderNotification, unitsToDecimal } from '@/modules/notifications/templates'

describe('amounts', () => {
  test('integer text in the smallest unit reads exactly, whatever its size', () => {
    expect(unitsToDecimal('1', '18')).toBe('0.000000000000000001')
    expect(unitsToDecimal('1000000', '6')).toBe('1')
    expect(unitsToDecimal('123456789012345678901234567890', '18')).toBe('123456789012.34567890123456789')
    expect(unitsToDecimal('0', '6')).toBe('0')
    expect(unitsToDecimal('42', '0')).toBe('42')
    for (const [u, d] of [['1.5', '6'], ['-1', '6'], ['12', 'x'], [null, '6'], ['12', null]] as const) expect(unitsToDecimal(u, d)).toBeNull()
  })

  test('a swap names both tokens; a send without an amount or address still reads', () => {
    expect(renderNotification('transaction.confirmed', { type: 'swap', amount: '2000000000000000000', decimals: '18', symbol: 'xDAI', toSymbol: 'USDC' }, 'en'))
      .toEqual({ title: 'Swap confirmed', body: 'Your swap of 2 xDAI to USDC is confirmed.' })
    expect(renderNotification('transaction.failed', { type: 'swap', amount: '1500000', decimals: '6', symbol: 'USDC', toSymbol: 'EURe' }, 'it'))
      .toEqual({ title: 'Scambio non riuscito', body: 'Il tuo scambio di 1,5 USDC in EURe non è andato a buon fine.' })
    expect(renderNotification('transaction.failed', { type: 'send' }, 'en')).toEqual({ title: 'Transaction failed', body: 'Your send did not go through.' })
  })

  test('a kind this version does not know reads as a generic update', () => {
    expect(renderNotification('something.new', {}, 'it')).toEqual({ title: 'Aggiornamento', body: 'C\'è una novità nel tuo account.' })
  })
})
