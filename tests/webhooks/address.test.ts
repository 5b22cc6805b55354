import { describe, expect, test } from 'bun:test'
import { AddressRefused, isPublicAddress, normalizeWebhookUrl } from '@/modules/webhooks/address'

const reasonOf = (url: string, dev: string[] = []) => {
  try {
    normalizeWebhookUrl(url, new Set(dev))
    return 'accepted'
  } catch (err) {
    if (err instanceof AddressRefused) return err.reason
    throw err
  }
}

describe('webhook address rules', () => {
  test.each([
    ['https://Hooks.Example.COM/path?a=1&b=2', 'https://hooks.example.com/path?a=1&b=2'],
    ['https://hooks.example.com:443/x', 'https://hooks.example.com/x'],
    ['https://hooks.example.com', 'https://hooks.example.com/'],
    ['https://bücher.example.com/hook', 'https://xn--bcher-kva.example.com/hook'],
    ['https://hooks.example.com/a%20b?q=%20', 'accepted-but-refused'],
  ])('%s is stored as the URL parser writes it', (input, expected) => {
    if (expected === 'accepted-but-refused') return expect(reasonOf(input)).toBe('encoded_character')
    expect(normalizeWebhookUrl(input)).toBe(expected)
  })

  test.each([
    ['http://hooks.example.com/', 'not_https'],
    ['ftp://hooks.example.com/', 'not_https'],
    ['https://hooks.example.com:8443/', 'port'],
    ['https://user:pw@hooks.example.com/', 'credentials'],
    ['https://user@hooks.example.com/', 'credentials'],
    ['https://hooks.example.com/#frag', 'fragment'],
    ['https://hooks.example.com/a b', 'whitespace'],
    [' https://hooks.example.com/', 'whitespace'],
    ['https://hooks.example.com/\ta', 'whitespace'],
    ['https://hooks.example.com\\evil.com/', 'backslash'],
    ['https://hooks.example.com/a/../b', 'dot_segment'],
    ['https://hooks.example.com/a/./b', 'dot_segment'],
    ['https://hooks.example.com/a/%2e%2E/b', 'dot_segment'],
    ['https://hooks.example.com/a/.%2e/b', 'dot_segment'],
    ['https://hooks.example.com/a/%2e/b', 'dot_segment'],
    ['https://hooks.example.com/a%5cb', 'encoded_character'],
    ['https://hooks.example.com/a%09b', 'encoded_character'],
    ['https://127.0.0.1/', 'ip_address'],
    ['https://0177.0.0.1/', 'ip_address'],
    ['https://2130706433/', 'ip_address'],
    ['https://0x7f.1/', 'ip_address'],
    ['https://[::1]/', 'ip_address'],
    ['https://[::ffff:127.0.0.1]/', 'ip_address'],
    ['https://8.8.8.8/', 'ip_address'],
    ['https://localhost/', 'refused_name'],
    ['https://api.localhost/', 'refused_name'],
    ['https://printer.local/', 'refused_name'],
    ['https://db.internal/', 'refused_name'],
    ['https://nas.home.arpa/', 'refused_name'],
    ['https://box.localdomain/', 'refused_name'],
    ['https://intranet/', 'not_public_name'],
    ['https://under_score.example.com/', 'not_public_name'],
    ['https://-bad.example.com/', 'not_public_name'],
    ['https://hooks.example.com./', 'not_public_name'],
    ['https://hooks.slipway.test/', 'reserved_name'],
    ['https://x.example/', 'reserved_name'],
    ['https://x.invalid/', 'reserved_name'],
    ['https://x.onion/', 'reserved_name'],
    ['not a url', 'whitespace'],
    ['https://', 'malformed'],
  ])('%s is refused (%s)', (input, reason) => {
    expect(reasonOf(input)).toBe(reason)
  })

  test('at most 2048 characters', () => {
    const base = 'https://hooks.example.com/'
    expect(reasonOf(base + 'a'.repeat(2048 - base.length))).toBe('accepted')
    expect(reasonOf(base + 'a'.repeat(2049 - base.length))).toBe('too_long')
  })

  test('a host of WEBHOOK_DEV_ROUTES may use a reserved TLD; every other rule still applies', () => {
    expect(reasonOf('https://hooks.slipway.test/in?x=1', ['hooks.slipway.test'])).toBe('accepted')
    expect(reasonOf('http://hooks.slipway.test/in', ['hooks.slipway.test'])).toBe('not_https')
    expect(reasonOf('https://hooks.slipway.test:8443/in', ['hooks.slipway.test'])).toBe('port')
    expect(reasonOf('https://other.slipway.test/in', ['hooks.slipway.test'])).toBe('reserved_name')
  })
})

describe('public address policy (checked on every resolved address)', () => {
  test.each([
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['2a00:1450:4001:82b::200e', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['0177.0.0.1', false],
    ['2130706433', false],
    ['0x7f000001', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['198.18.0.1', false],
    ['192.0.2.10', false],
    ['198.51.100.1', false],
    ['203.0.113.9', false],
    ['192.0.0.8', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['240.0.0.1', false],
    ['::', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['64:ff9b::a00:1', false],
    ['64:ff9b:1::1', false],
    ['2002:c0a8:1::', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['2001:db8::1', false],
    ['2001:2::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['ff02::1', false],
    ['::127.0.0.1', false],
    ['not-an-ip', false],
  ])('%s public: %p', (addr, expected) => {
    expect(isPublicAddress(addr)).toBe(expected)
  })
})
