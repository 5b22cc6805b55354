/** The dApp verbs routes.ts loads with the first dApp request, and with them the chain libraries. */
export { broadcastSigned } from './broadcast'
export { issueNonce, signPersonalMessage } from './service'
