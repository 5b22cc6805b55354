/**
 * Firebase Cloud Messaging's HTTP v1 API: `POST {baseUrl}/v1/projects/{projectId}/messages:send`
 * with `{ message: { token, notification: { title, body }, data } }`, authorised by an OAuth
 * access token that google-auth-library obtains for the service account (a JWT signed with its
 * private key, exchanged at the token endpoint, cached until it nears expiry).
 *
 * google-auth-library is loaded on the first push, so a process that never pushes never holds
 * it. Its version 11 posts the signed JWT to Google's fixed address
 * (`https://oauth2.googleapis.com/token`) whatever the key file's `token_uri` says; the fetch
 * it is given sends that request to the key's `token_uri` instead. For a real key the two are
 * the same address; a test's key names a local fake token endpoint.
 *
 * Secrets: the device token, the private key and the access token never go into a log line or
 * an error message; errors say what happened with status codes and FCM's error codes.
 */
import type { PushMessage, PushOutcome, PushSender } from './port'

export const FCM_DEFAULT_BASE_URL = 'https://fcm.googleapis.com'
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
/** Where google-auth-library posts the signed JWT, whatever the key says (see above). */
const LIBRARY_TOKEN_URL = 'https://oauth2.googleapis.com/token'

export interface ServiceAccount {
  clientEmail: string
  privateKey: string
  /** the OAuth token endpoint the key names (`token_uri`) */
  tokenUri: string
}

export interface FcmOptions {
  serviceAccount: ServiceAccount
  projectId: string
  baseUrl?: string
  timeoutMs: number
  fetch?: typeof fetch
}

interface AccessTokens {
  getAccessToken(): Promise<{ token?: string | null }>
}

interface FcmErrorBody {
  error?: {
    code?: number
    message?: string
    status?: string
    details?: Array<{ '@type'?: string; errorCode?: string; fieldViolations?: Array<{ field?: string; description?: string }> }>
  }
}

const urlOf = (input: Parameters<typeof fetch>[0]) => (input instanceof Request ? input.url : String(input))

function retryAfter(res: Response): number | undefined {
  const v = res.headers.get('retry-after')
  if (!v) return undefined
  const s = /^\d+$/.test(v) ? Number(v) : Math.ceil((Date.parse(v) - Date.now()) / 1000)
  return Number.isFinite(s) && s >= 0 ? s : undefined
}

/** The token FCM names as the problem: unregistered (404 `UNREGISTERED`) or not a registration token at all (400 `INVALID_ARGUMENT` about `message.token`). */
function tokenProblem(status: number, body: FcmErrorBody): string | null {
  const e = body.error
  const codes = (e?.details ?? []).map((d) => d.errorCode).filter(Boolean)
  if (status === 404 && codes.includes('UNREGISTERED')) return 'UNREGISTERED'
  if (status === 400 && (e?.status === 'INVALID_ARGUMENT' || codes.includes('INVALID_ARGUMENT'))) {
    // INVALID_ARGUMENT also answers a malformed message (a reserved data key, too large):
    // only the token's own violation means the token is bad.
    const aboutToken = (e?.details ?? []).some((d) => (d.fieldViolations ?? []).some((v) => v.field === 'message.token'))
      || /registration token/i.test(e?.message ?? '')
    if (aboutToken) return 'INVALID_ARGUMENT'
  }
  return null
}

export class FcmPush implements PushSender {
  private readonly baseUrl: string
  private readonly fetchFn: typeof fetch
  private auth?: Promise<AccessTokens>

  constructor(private readonly opts: FcmOptions) {
    this.baseUrl = (opts.baseUrl ?? FCM_DEFAULT_BASE_URL).replace(/\/+$/, '')
    this.fetchFn = opts.fetch ?? fetch
  }

  /** The service account's token source, built on first use (google-auth-library loads then). */
  private tokens(): Promise<AccessTokens> {
    this.auth ??= (async () => {
      const { JWT } = await import('google-auth-library')
      const { clientEmail, privateKey, tokenUri } = this.opts.serviceAccount
      const routed = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
        this.fetchFn(urlOf(input) === LIBRARY_TOKEN_URL ? tokenUri : input, init)) as typeof fetch
      return new JWT({ email: clientEmail, key: privateKey, scopes: [FCM_SCOPE], transporterOptions: { fetchImplementation: routed, timeout: this.opts.timeoutMs } })
    })().catch((err) => {
      this.auth = undefined
      throw err
    })
    return this.auth
  }

  private async accessToken(): Promise<{ token: string } | PushOutcome> {
    try {
      const { token } = await (await this.tokens()).getAccessToken()
      if (!token) return { kind: 'retry', reason: 'the token endpoint answered no access token' }
      return { token }
    } catch (err) {
      // GaxiosError: `status` (or `response.status`) when the endpoint answered
      const e = err as { status?: number; response?: { status?: number }; code?: string; name?: string }
      const status = e.status ?? e.response?.status
      if (status === undefined || status >= 500 || status === 429) return { kind: 'retry', reason: `the OAuth token endpoint ${status === undefined ? 'did not answer' : `answered ${status}`}` }
      // the key itself was refused (revoked, wrong account): the same request fails again
      return { kind: 'refused', status, reason: `the OAuth token endpoint refused the service account (${status})` }
    }
  }

  async send(m: PushMessage): Promise<PushOutcome> {
    const access = await this.accessToken()
    if ('kind' in access) return access
    let res: Response
    try {
      res = await this.fetchFn(`${this.baseUrl}/v1/projects/${encodeURIComponent(this.opts.projectId)}/messages:send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: { token: m.token, notification: { title: m.title, body: m.body }, data: m.data } }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      })
    } catch (err) {
      return { kind: 'retry', reason: `FCM did not answer (${(err as Error).name})` }
    }
    const body = await res.json().catch(() => ({})) as FcmErrorBody & { name?: string }
    if (res.ok) return { kind: 'sent', name: typeof body.name === 'string' ? body.name : null }
    const problem = tokenProblem(res.status, body)
    if (problem) return { kind: 'unregistered', reason: `FCM answered ${res.status} ${problem}` }
    if (res.status === 401) {
      // the cached access token was refused (revoked early): the next attempt gets a new one
      this.auth = undefined
      return { kind: 'retry', reason: 'FCM refused the access token (401)' }
    }
    if (res.status === 429 || res.status >= 500) return { kind: 'retry', reason: `FCM answered ${res.status}${body.error?.status ? ` ${body.error.status}` : ''}`, retryAfterSeconds: retryAfter(res) }
    return { kind: 'refused', status: res.status, reason: `FCM answered ${res.status}${body.error?.status ? ` ${body.error.status}` : ''}` }
  }
}
