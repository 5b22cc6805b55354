/**
 * Example request bodies by `operationId`, for routes whose body schema carries no
 * `examples` of its own (newer routes put them in the schema). `finishDocument`
 * (src/http/openapi.ts) adds each to the served document, so the docs page and generated
 * clients show them. tests/platform/openapi.test.ts checks that every body has an example
 * and that each passes its route's schema, so an example cannot drift from the route.
 */
const WALLET_ID = '0b9f3c4e-6a1d-4f0e-9c2b-7d5e8a1f2c3b'
const USER_ID = '5f2b8c1d-3e4a-4b6c-8d9e-0a1b2c3d4e5f'
const TENANT_ID = '9a8b7c6d-5e4f-4a3b-9c1d-0e1f2a3b4c5d'
const CHALLENGE_ID = '3c2d1e0f-9a8b-4c7d-8e6f-5a4b3c2d1e0f'

export const BODY_EXAMPLES: Record<string, unknown> = {
  register: { username: 'alice', email: 'alice@example.com', password: 'Str0ng-Passw0rd', wallet: { option: 'create', chain: 'sepolia' } },
  login: { username: 'alice', password: 'Str0ng-Passw0rd' },
  refresh: { refreshToken: 'rt_3q2-7wE…' },
  adminLogin: { username: 'ops', password: 'Change-me-1' },
  createTenant: { name: 'Acme', settings: { refreshTokenRotation: true, walletMode: 'custodial' } },
  updateTenant: { name: 'Acme Wallet', settings: { passwordReset: { enabled: true, senderName: 'Acme Wallet', resetLinkBaseUrl: 'https://wallet.acme.example/reset' } } },
  createUser: { username: 'bob', password: 'Passw0rd-bob', email: 'bob@example.com', role: 'user' },
  updateMe: { displayName: 'Alice A.' },
  setFcmToken: { token: 'fcm-device-token-123', locale: 'it' },
  updateUser: { password: 'N3w-Passw0rd', currentPassword: 'Str0ng-Passw0rd' },
  createWallet: { chain: 'sepolia', name: 'Main', isPrimary: true },
  importWallet: { chain: 'ethereum', mnemonic: 'test test test test test test test test test test test junk', accountIndex: 0, name: 'Imported', isTestnet: true },
  registerClientWallet: { challengeId: CHALLENGE_ID, signature: '0x5d99b6f7…1b', name: 'Phone wallet' },
  registerDevice: { publicKey: 'q1Tn0V8tX7m3fB0rWcJz6bS2kYp9dE4aLh5uGi1oR2c=', name: 'Alice\'s phone', password: 'Str0ng-Passw0rd' },
  confirmClientCustody: { walletId: WALLET_ID, challengeId: CHALLENGE_ID, signature: '0x5d99b6f7…1b' },
  cancelMigration: { walletId: WALLET_ID },
  requestExportToken: { walletId: WALLET_ID, password: 'Str0ng-Passw0rd' },
  exportKey: { walletId: WALLET_ID, exportToken: 'ext_9Jr2…', clientPublicKey: 'q1Tn0V8tX7m3fB0rWcJz6bS2kYp9dE4aLh5uGi1oR2c=' },
  setWalletPrimaryFlag: { isPrimary: true },
  forgotPassword: { email: 'alice@example.com', locale: 'en' },
  resetPassword: { token: 'the-token-from-the-emailed-link', newPassword: 'N3w-Passw0rd', locale: 'en' },
  adminSendReset: { userId: USER_ID, tenantId: TENANT_ID, locale: 'en' },
  googleSignIn: { idToken: 'eyJhbGciOiJSUzI1NiIsImtpZCI6…', nonce: 'n-0S6_WzA2Mj' },
  appleSignIn: { idToken: 'eyJhbGciOiJSUzI1NiIsImtpZCI6…', nonce: 'n-0S6_WzA2Mj', firstName: 'Alice', lastName: 'Example' },
}
