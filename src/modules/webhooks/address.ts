/**
 * Webhook address rules (spec, Events > Webhook setup) and the public-address
 * policy checked at every delivery attempt. Pure functions, table-tested.
 */
import ipaddr from 'ipaddr.js'

export const MAX_URL_LENGTH = 2048

export class AddressRefused extends Error {
  constructor(readonly reason: string, message: string) {
    super(message)
    this.name = 'AddressRefused'
  }
}

const REFUSED_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.localdomain']
/**
 * Special-use TLDs (RFC 2606, RFC 6761, RFC 7686) never resolve to a public server,
 * so a webhook there can never be delivered: refused, except hosts listed in
 * WEBHOOK_DEV_ROUTES (which production refuses at start-up).
 */
const RESERVED_TLDS = ['test', 'example', 'invalid', 'onion', 'arpa', 'alt']
/**
 * The not_https refusal names the ways to receive deliveries locally, since a plain
 * `http://` address is usually a developer's own machine.
 */
export const NOT_HTTPS_MESSAGE = 'The address must start with https://. To receive sandbox deliveries on your own machine, run `slipway webhooks listen --tenant <tenantId>` '
  + '(it registers a development route and prints every event, verified); in development and tests, WEBHOOK_DEV_ROUTES maps an https host to a local origin'

/** A host under a special-use top-level domain (no public server answers there). */
export function isReservedName(host: string): boolean {
  return RESERVED_TLDS.includes(host.slice(host.lastIndexOf('.') + 1))
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
const ENCODED_SPECIAL = /%(?:5c|20|09|0a|0b|0c|0d|00)/i

/**
 * Checks a webhook address and answers it as the URL parser writes it
 * (lowercase host, punycode, `:443` dropped). `devHosts` are the hosts of
 * WEBHOOK_DEV_ROUTES, allowed under reserved TLDs; every other rule still applies.
 */
export function normalizeWebhookUrl(raw: string, devHosts: ReadonlySet<string> = new Set()): string {
  if (raw.length > MAX_URL_LENGTH) throw new AddressRefused('too_long', `The address is longer than ${MAX_URL_LENGTH} characters`)
  // Checked on the raw text: the URL parser silently strips or rewrites these.
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) throw new AddressRefused('whitespace', 'The address contains whitespace or control characters')
  if (raw.includes('\\')) throw new AddressRefused('backslash', 'The address contains a backslash')
  if (raw.includes('#')) throw new AddressRefused('fragment', 'The address has a fragment')
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new AddressRefused('malformed', 'The address is not a valid URL')
  }
  if (url.protocol !== 'https:' || !/^https:\/\//i.test(raw)) throw new AddressRefused('not_https', NOT_HTTPS_MESSAGE)
  if (url.username || url.password || rawAuthority(raw).includes('@')) throw new AddressRefused('credentials', 'The address must not carry a user or password')
  if (url.port !== '') throw new AddressRefused('port', 'The address must use port 443')
  const rawPath = rawPathOf(raw)
  for (const segment of rawPath.split('/')) {
    const decoded = segment.replace(/%2e/gi, '.')
    if (decoded === '.' || decoded === '..') throw new AddressRefused('dot_segment', 'The address has a . or .. path segment')
  }
  if (ENCODED_SPECIAL.test(rawPath)) throw new AddressRefused('encoded_character', 'The address path has an encoded whitespace, backslash or NUL')
  const host = url.hostname
  if (host.startsWith('[') || ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.isValid(host)) {
    throw new AddressRefused('ip_address', 'The address must use a DNS name, not an IP address')
  }
  if (host === 'localhost' || REFUSED_SUFFIXES.some((s) => host.endsWith(s))) throw new AddressRefused('refused_name', `The host ${host} is a local name`)
  const labels = host.split('.')
  if (host.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1]!)) {
    throw new AddressRefused('not_public_name', 'The host must be a full public DNS name')
  }
  if (RESERVED_TLDS.includes(labels[labels.length - 1]!) && !devHosts.has(host)) {
    throw new AddressRefused('reserved_name', `The host ${host} is under a reserved top-level domain`)
  }
  return url.href
}

function rawAuthority(raw: string): string {
  const rest = raw.slice(raw.indexOf('//') + 2)
  return rest.split(/[/?]/, 1)[0] ?? ''
}

function rawPathOf(raw: string): string {
  const rest = raw.slice(raw.indexOf('//') + 2)
  const slash = rest.indexOf('/')
  if (slash < 0) return ''
  return rest.slice(slash).split('?', 1)[0]!
}

const V4_NOT_PUBLIC_EXTRA = [
  // 0.0.0.0/8 "this network" and 192.0.0.0/24 IETF are covered by ipaddr's ranges;
  // these are listed again so a library change cannot open them silently.
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24',
  '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/3',
].map((c) => ipaddr.IPv4.parseCIDR(c))
const V6_NOT_PUBLIC_EXTRA = [
  '64:ff9b::/96', '64:ff9b:1::/48', '2001::/23', '2001:db8::/32', '2002::/16', '3fff::/20', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
].map((c) => ipaddr.IPv6.parseCIDR(c))
const V6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3')

/**
 * Whether a resolved address may receive a delivery: only public unicast. Every
 * special range ipaddr.js knows is refused (private, loopback, link-local, CGNAT,
 * benchmarking, documentation, IETF, NAT64, 6to4, Teredo, multicast, unspecified,
 * reserved), IPv6 must be global unicast (2000::/3), and an IPv4-mapped address is
 * judged by the IPv4 address it maps. Text ipaddr.js cannot parse is refused.
 */
export function isPublicAddress(text: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6
  try {
    addr = ipaddr.parse(text.replace(/^\[|\]$/g, '').split('%')[0]!)
  } catch {
    return false
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6
    if (v6.isIPv4MappedAddress()) return isPublicV4(v6.toIPv4Address())
    if (v6.range() !== 'unicast') return false
    if (!v6.match(V6_GLOBAL_UNICAST)) return false
    return !V6_NOT_PUBLIC_EXTRA.some((r) => v6.match(r))
  }
  return isPublicV4(addr as ipaddr.IPv4)
}

function isPublicV4(v4: ipaddr.IPv4): boolean {
  if (v4.range() !== 'unicast') return false
  return !V4_NOT_PUBLIC_EXTRA.some((r) => v4.match(r))
}
