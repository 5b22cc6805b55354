/**
 * @simplewebauthn/server, loaded with the first passkey ceremony: with its ASN.1 and X.509
 * stack (asn1js, @peculiar/*, tsyringe, reflect-metadata) it is about 0.5 MB of code, which a
 * process that serves no passkey never evaluates (tests/ops/lazy-loading.test.ts).
 */
import { lazy } from '../../lib/lazy'

export const webauthn = lazy(() => import('@simplewebauthn/server'))
