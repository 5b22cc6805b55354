/**
 * The headers of a page Slipway serves itself (the password reset page, the hosted passkey
 * page): a strict content security policy that runs only the page's own script and style by
 * their nonce, no referrer (the address may hold a token), nothing cached, no sniffing.
 */
export function pageHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src 'nonce-${nonce}'`, "connect-src 'self'", "img-src 'self'",
      "form-action 'none'", "base-uri 'none'", "frame-ancestors 'none'",
    ].join('; '),
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  }
}
