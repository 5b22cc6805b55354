/**
 * A local server speaking Firebase Cloud Messaging's HTTP v1 API and Google's OAuth token
 * endpoint, as Slipway's FCM adapter meets them:
 *
 * - `POST /token`: the service-account JWT bearer grant (`grant_type=urn:ietf:params:oauth:
 *   grant-type:jwt-bearer`, `assertion=<JWT>`). The JWT's RS256 signature is checked with the
 *   public key of the service account this fake made (`serviceAccountJson()`), and its `iss`,
 *   `scope`, `aud` and `exp`; a good one gets a fresh access token (`expires_in` 3600).
 * - `POST /v1/projects/{projectId}/messages:send`: needs `Authorization: Bearer <a token this
 *   fake issued>` (401 `UNAUTHENTICATED` otherwise) and the project of the key (404 otherwise);
 *   checks the message as FCM does (a token, a notification with title and body, string data
 *   values) and answers `{ name }`, or what the test set for a device token: 404 `UNREGISTERED`,
 *   400 `INVALID_ARGUMENT` on `message.token`, or a run of 503/429 answers before it succeeds.
 *
 * The error bodies are FCM's: `{ error: { code, message, status, details: [FcmError, BadRequest] } }`.
 */
import { createPublicKey, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto'

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
const GOOGLE_TOKEN_AUD = 'https://oauth2.googleapis.com/token'

export interface PushedMessage {
  token: string
  notification: { title: string; body: string }
  data: Record<string, string>
}

type Fate = 'unregistered' | 'malformed' | { status: 503 | 429 | 500 | 403; times: number; retryAfter?: string }

const b64url = (s: string) => Buffer.from(s, 'base64url')

function fcmError(code: number, status: string, message: string, errorCode: string, field?: string) {
  const details: unknown[] = [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }]
  if (field) details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description: message }] })
  return Response.json({ error: { code, message, status, details } }, { status: code })
}

export class FakeFcm {
  readonly projectId = `slipway-test-${randomBytes(3).toString('hex')}`
  readonly clientEmail = `push@${this.projectId}.iam.gserviceaccount.com`
  readonly privateKeyPem: string
  private readonly publicKey: ReturnType<typeof createPublicKey>
  private readonly issued = new Set<string>()
  private readonly fates = new Map<string, Fate>()
  /** messages accepted (200), in order */
  readonly delivered: PushedMessage[] = []
  /** every messages:send request, with the status answered */
  readonly attempts: Array<{ token: string | undefined; status: number }> = []
  /** every token request, with the claims of its JWT when it verified */
  readonly tokenRequests: Array<{ status: number; claims?: Record<string, unknown> }> = []
  private readonly paused = new Map<string, { arrived: () => void; released: Promise<void> }>()
  private server?: ReturnType<typeof Bun.serve>

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    this.privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    this.publicKey = publicKey
  }

  /** The device `token` is unregistered (404), malformed (400 on message.token), or answers `status` `times` times before it is accepted. */
  fate(token: string, fate: Fate) {
    this.fates.set(token, fate)
    return this
  }

  /**
   * Holds the next messages:send for `token` before answering it: `arrived` settles when the
   * request is in, and the answer leaves once `release()` is called.
   */
  pause(token: string) {
    let arrived!: () => void
    let release!: () => void
    const arrival = new Promise<void>((r) => { arrived = r })
    this.paused.set(token, { arrived, released: new Promise<void>((r) => { release = r }) })
    return { arrived: arrival, release }
  }

  start() {
    this.server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => this.handle(req) })
    return this
  }

  get url() {
    return `http://127.0.0.1:${this.server!.port}`
  }

  /** A service account key file whose `token_uri` is this fake (or `tokenUri`), as FCM_SERVICE_ACCOUNT_JSON takes it. */
  serviceAccountJson(tokenUri = `${this.url}/token`) {
    return JSON.stringify({
      type: 'service_account', project_id: this.projectId, private_key_id: randomBytes(20).toString('hex'), private_key: this.privateKeyPem,
      client_email: this.clientEmail, client_id: '1', auth_uri: 'https://accounts.google.com/o/oauth2/auth', token_uri: tokenUri,
    })
  }

  /** Every access token issued so far stops working (as a revoked key's would): the next send with one answers 401. */
  revokeAccessTokens() {
    this.issued.clear()
  }

  deliveredTo(token: string) {
    return this.delivered.filter((m) => m.token === token)
  }

  stop() {
    this.server?.stop(true)
  }

  private async handle(req: Request): Promise<Response> {
    const url = new URL(req.url)
    if (req.method === 'POST' && url.pathname === '/token') return this.token(await req.text())
    const m = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(url.pathname)
    if (req.method === 'POST' && m) {
      const raw = await req.text()
      const token = (() => { try { return (JSON.parse(raw) as { message?: { token?: string } }).message?.token } catch { return undefined } })()
      const hold = token ? this.paused.get(token) : undefined
      if (hold) {
        this.paused.delete(token!)
        hold.arrived()
        await hold.released
      }
      return this.send(decodeURIComponent(m[1]!), req.headers.get('authorization'), raw)
    }
    return fcmError(404, 'NOT_FOUND', 'Not found', 'UNSPECIFIED_ERROR')
  }

  private token(form: string): Response {
    const p = new URLSearchParams(form)
    const refuse = (why: string) => {
      this.tokenRequests.push({ status: 400 })
      return Response.json({ error: 'invalid_grant', error_description: why }, { status: 400 })
    }
    if (p.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse('unsupported grant_type')
    const [h, c, s] = (p.get('assertion') ?? '').split('.')
    if (!h || !c || !s) return refuse('malformed assertion')
    const header = JSON.parse(b64url(h).toString()) as { alg?: string }
    const valid = header.alg === 'RS256' && createVerify('RSA-SHA256').update(`${h}.${c}`).verify(this.publicKey, b64url(s))
    if (!valid) return refuse('Invalid JWT Signature.')
    const claims = JSON.parse(b64url(c).toString()) as Record<string, unknown>
    const now = Math.floor(Date.now() / 1000)
    if (claims.iss !== this.clientEmail || claims.aud !== GOOGLE_TOKEN_AUD || !String(claims.scope).split(' ').includes(FCM_SCOPE) || Number(claims.exp) < now) {
      return refuse('Invalid JWT: iss, aud, scope or exp')
    }
    const access = `ya29.fake-${randomBytes(16).toString('hex')}`
    this.issued.add(access)
    this.tokenRequests.push({ status: 200, claims })
    return Response.json({ access_token: access, expires_in: 3600, token_type: 'Bearer' })
  }

  private send(project: string, authorization: string | null, raw: string): Response {
    let message: Partial<PushedMessage> | undefined
    try {
      message = (JSON.parse(raw) as { message?: Partial<PushedMessage> }).message
    } catch { /* answered below */ }
    const answer = (res: Response) => {
      this.attempts.push({ token: message?.token, status: res.status })
      return res
    }
    const bearer = /^Bearer (.+)$/.exec(authorization ?? '')?.[1]
    if (!bearer || !this.issued.has(bearer)) return answer(Response.json({ error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } }, { status: 401 }))
    if (project !== this.projectId) return answer(fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNSPECIFIED_ERROR'))
    if (!message || typeof message.token !== 'string' || !message.token) return answer(fcmError(400, 'INVALID_ARGUMENT', 'Recipient of the message is not set.', 'INVALID_ARGUMENT', 'message'))
    const n = message.notification
    if (!n || typeof n.title !== 'string' || typeof n.body !== 'string') return answer(fcmError(400, 'INVALID_ARGUMENT', 'Invalid notification', 'INVALID_ARGUMENT', 'message.notification'))
    const data = message.data ?? {}
    for (const [k, v] of Object.entries(data)) {
      if (typeof v !== 'string') return answer(fcmError(400, 'INVALID_ARGUMENT', `Invalid value at 'message.data[${k}].value' (TYPE_STRING)`, 'INVALID_ARGUMENT', `message.data[${k}].value`))
      if (/^(from|notification|message_type)$|^(google|gcm)/i.test(k)) return answer(fcmError(400, 'INVALID_ARGUMENT', `Invalid data key: ${k}`, 'INVALID_ARGUMENT', 'message.data'))
    }
    const fate = this.fates.get(message.token)
    if (fate === 'unregistered') return answer(fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'))
    if (fate === 'malformed') return answer(fcmError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', 'INVALID_ARGUMENT', 'message.token'))
    if (fate && typeof fate === 'object' && fate.times > 0) {
      fate.times--
      const res = fate.status === 403
        ? fcmError(403, 'PERMISSION_DENIED', 'SenderId mismatch', 'SENDER_ID_MISMATCH')
        : fcmError(fate.status, fate.status === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE', 'Try again later', fate.status === 429 ? 'QUOTA_EXCEEDED' : 'UNAVAILABLE')
      if (fate.retryAfter) res.headers.set('retry-after', fate.retryAfter)
      return answer(res)
    }
    this.delivered.push({ token: message.token, notification: { title: n.title, body: n.body }, data: data as Record<string, string> })
    return answer(Response.json({ name: `projects/${project}/messages/${this.delivered.length}` }))
  }
}
