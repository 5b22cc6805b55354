/**
 * The client's IP address: the socket's, unless the socket belongs to a proxy named
 * in TRUSTED_PROXIES, in which case the right-most X-Forwarded-For entry that is not
 * itself a trusted proxy. Without TRUSTED_PROXIES the header is ignored, so a client
 * cannot choose its own rate-limit bucket.
 */
import ipaddr from 'ipaddr.js'

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]

export class ClientIpResolver {
  private readonly ranges: Range[]
  constructor(trustedProxies: string[]) {
    this.ranges = trustedProxies.map((entry) => {
      if (entry.includes('/')) return ipaddr.parseCIDR(entry)
      const addr = ipaddr.parse(entry)
      return [addr, addr.kind() === 'ipv4' ? 32 : 128] as Range
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

  private trusted(ip: string): boolean {
    if (!this.ranges.length) return false
    let addr: ipaddr.IPv4 | ipaddr.IPv6
    try {
      addr = ipaddr.process(ip)
    } catch {
      return false
    }
    return this.ranges.some(([net, bits]) => {
      const n = net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() ? (net as ipaddr.IPv6).toIPv4Address() : net
      return n.kind() === addr.kind() && addr.match([n, n.kind() === 'ipv4' && bits > 32 ? bits - 96 : bits] as Range)
    })
  }

  resolve(socketIp: string | undefined, forwardedFor: string | null): string {
    const socket = normalise(socketIp ?? 'unknown')
    if (!forwardedFor || !this.trusted(socket)) return socket
    const hops = forwardedFor.split(',').map((s) => normalise(s.trim())).filter(Boolean)
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!this.trusted(hops[i]!)) return hops[i]!
    }
    return hops[0] ?? socket
  }
}

function normalise(ip: string): string {
  try {
    return ipaddr.process(ip).toString()
  } catch {
    return ip
  }
}
