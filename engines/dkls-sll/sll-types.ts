/**
 * The part of `@silencelaboratories/dkls-wasm-ll-node` 1.1.2's API this engine uses, declared
 * here so that Slipway type-checks without the package installed (it is not a dependency of
 * Slipway: docs/mpc.md, "The engine").
 */
export interface SllMessage {
  readonly from_id: number
  readonly to_id?: number
  readonly payload: Uint8Array
  clone(): SllMessage
  free(): void
}

export interface SllKeyshare {
  readonly partyId: number
  readonly publicKey: Uint8Array
  toBytes(): Uint8Array
  free(): void
}

export interface SllKeygenSession {
  createFirstMessage(): SllMessage
  handleMessages(msgs: SllMessage[], commitments?: Uint8Array[]): SllMessage[]
  calculateChainCodeCommitment(): Uint8Array
  keyshare(): SllKeyshare
  free(): void
}

export interface SllSignSession {
  createFirstMessage(): SllMessage
  handleMessages(msgs: SllMessage[]): SllMessage[]
  lastMessage(messageHash: Uint8Array): SllMessage
  combine(msgs: SllMessage[]): unknown
  free(): void
}

export interface SllModule {
  Message: new (payload: Uint8Array, from: number, to?: number) => SllMessage
  KeygenSession: new (participants: number, threshold: number, partyId: number) => SllKeygenSession
  SignSession: new (keyshare: SllKeyshare, chainPath: string) => SllSignSession
  Keyshare: { fromBytes(bytes: Uint8Array): SllKeyshare }
}
