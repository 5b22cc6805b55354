/**
 * The client's IP address: the socket's, unless the socket belongs to a proxy named
 * in TRUSTED_PROXIES, in which case the right-most X-Forwarded-For entry that is not
 * itself a trusted proxy. Without TRUSTED_PROXIES the header is ignored, so a client
 * cannot choose its own rate-limit bucket.
 */
import ipaddr from 'ipaddr.js'

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Range = [Address, number]

export class ClientIpResolver {
  /** Trusted ranges as addresses are compared: an IPv4-mapped IPv6 range as its IPv4 range. */
  private readonly ranges: Range[]
  constructor(trustedProxies: string[]) {
    this.ranges = trustedProxies.map((entry) => {
      const [net, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : ((addr) => [addr, addr.kind() === 'ipv4' ? 32 : 128] as Range)(ipaddr.parse(entry))
      if (net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress()) return [(net as ipaddr.IPv6).toIPv4Address(), bits > 32 ? bits - 96 : bits] as Range
      return [net, bits] as Range
    })
  }

  static validate(entries: string[]): string[] {
    const bad: string[] = []
    for (const e of entries) {
      try {
        if (e.includes('/')) ipaddr.parseCIDR(e)
        else ipaddr.parse(e)
      } catch {
        bad.push(e)
      }
    }
    return bad
  }

  private trusted(addr: Address | null): boolean {
    if (!addr || !this.ranges.length) return false
    return this.ranges.some((range) => range[0].kind() === addr.kind() && addr.match(range))
  }

  /** Each address is parsed once: the answer is its normal text, and trust is checked on the parsed form. */
  resolve(socketIp: string | undefined, forwardedFor: string | null): string {
    const socket = parse(socketIp ?? 'unknown')
    if (!forwardedFor || !this.trusted(socket.addr)) return socket.text
    const hops = forwardedFor.split(',').map((s) => parse(s.trim())).filter((h) => h.text)
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!this.trusted(hops[i]!.addr)) return hops[i]!.text
    }
    return hops[0]?.text ?? socket.text
  }
}

type Parsed = { readonly text: string; readonly addr: Address | null }

/**
 * The last PARSED_KEPT addresses' parses, by their text: parsing the socket's address and each
 * forwarded hop with ipaddr.js was about 2-3% of a registration's JavaScript thread, for the
 * same few addresses again and again. The parsed forms are only read (kind, match, toString).
 * Text longer than any address is parsed each time, not kept.
 */
const PARSED_KEPT = 1024
const parsed = new Map<string, Parsed>()

/** An address as written by a peer: its normal form (IPv4-mapped IPv6 as IPv4), or the text as it came when it is not an address. */
function parse(ip: string): Parsed {
  let out = parsed.get(ip)
  if (out) return out
  try {
    const addr = ipaddr.process(ip)
    out = { text: addr.toString(), addr }
  } catch {
    out = { text: ip, addr: null }
  }
  // an address is at most 45 characters: longer text (a forged header's) is not kept
  if (ip.length > 64) return out
  if (parsed.size >= PARSED_KEPT) parsed.delete(parsed.keys().next().value!)
  parsed.set(ip, out)
  return out
}
