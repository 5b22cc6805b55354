/** Export of a custodial wallet's private key: a password-confirmed token, then the key encrypted to the client. */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { stepUpGuard } from '../../http/step-up'
import type { StepUpCheck } from '../../context'
import { wallets } from './handle'
import { ExportedKey, ExportKey, ExportToken, RequestExportToken } from './model'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  requestExportToken: prose`
    A wrong password answers 422 (not 401, which would sign the user out). The token is single use,
    valid 5 minutes, for this wallet only. 10 per minute per IP.`,
  exportKey: prose`
    Spends the export token (403 when invalid, expired or used). The key is encrypted to
    \`clientPublicKey\`; see the KeyEnvelope schema for the exact construction. With \`key_export\` in
    the tenant's \`passkeys.stepUp.operations\`, a user who has a passkey sends a fresh approval for
    this exact body in \`Passkey-Approval\` (403 \`PASSKEY_APPROVAL_REQUIRED\` without it).`,
}

export function exportRoutes(deps: Deps, stepUp: StepUpCheck) {
  return new Elysia({ prefix: '/v1/wallets', detail: { tags: ['Wallets'] } })
    .use(security(deps))
    .use(stepUpGuard(deps, stepUp))
    .post('/request-export-token', async ({ body, ctx }) => wallets.requestExportToken(ctx, body), {
      auth: 'any',
      rateLimit: { max: 10, windowSeconds: 60 },
      body: RequestExportToken,
      response: { 200: ExportToken, ...errorResponses('standard', 400, 401, 404, 422, 429) },
      detail: { operationId: 'requestExportToken', summary: 'Re-confirm the password to export a wallet key', description: descriptions.requestExportToken },
    })
    .post('/export-key', async ({ body, ctx }) => wallets.exportKey(ctx, body), {
      auth: 'any',
      passkeyApproval: 'key_export',
      body: ExportKey,
      response: { 200: ExportedKey, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'exportKey', summary: 'Export a custodial wallet\'s private key, encrypted to the client', description: descriptions.exportKey },
    })
}
