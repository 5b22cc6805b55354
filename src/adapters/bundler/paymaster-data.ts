/**
 * The verifying paymaster's signature (SlipwayPaymaster, scripts/devnet/SlipwayPaymaster.sol):
 * what its signer signs for one user operation and how it travels in `paymasterData`. The
 * hash binds the sender, nonce, init code (a 7702 marker included), call data, every gas
 * limit and fee, the chain, the paymaster and the validity window, so a signature given for
 * one operation fails on chain for any other (the EntryPoint answers AA34).
 */
import { concat, encodeAbiParameters, keccak256, pad, toHex, type Address, type Hex, type LocalAccount } from 'viem'
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction'

/** the user operation as ERC-7677 and viem hand it over (v0.7 and later fields); gas limits and fees set */
export type SponsoredUserOperation = Pick<UserOperation<'0.8'>,
  'sender' | 'nonce' | 'callData' | 'callGasLimit' | 'verificationGasLimit' | 'preVerificationGas' | 'maxFeePerGas' | 'maxPriorityFeePerGas'
  | 'paymasterVerificationGasLimit' | 'paymasterPostOpGasLimit'
> & { factory?: Address | '0x7702' | undefined; factoryData?: Hex | undefined }

export interface PaymasterWindow {
  /** Unix seconds */
  validUntil: number
  validAfter: number
}

/** `getHash(userOp, validUntil, validAfter)` of the contract, computed off chain. */
export function paymasterHash(op: SponsoredUserOperation, chainId: number, paymaster: Address, w: PaymasterWindow): Hex {
  const packed = toPackedUserOperation({
    ...op,
    signature: '0x',
    paymaster,
    paymasterData: '0x',
    paymasterVerificationGasLimit: op.paymasterVerificationGasLimit ?? 0n,
    paymasterPostOpGasLimit: op.paymasterPostOpGasLimit ?? 0n,
  } as UserOperation<'0.8'>)
  const pmGas = concat([pad(toHex(op.paymasterVerificationGasLimit ?? 0n), { size: 16 }), pad(toHex(op.paymasterPostOpGasLimit ?? 0n), { size: 16 })])
  return keccak256(encodeAbiParameters(
    [
      { type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' },
      { type: 'uint256' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint48' }, { type: 'uint48' },
    ],
    [
      packed.sender, packed.nonce, keccak256(packed.initCode), keccak256(packed.callData), packed.accountGasLimits, BigInt(pmGas),
      packed.preVerificationGas, packed.gasFees, BigInt(chainId), paymaster, w.validUntil, w.validAfter,
    ],
  ))
}

/** `paymasterData`: the window, then the signature (65 bytes; a stub of the right length before gas is known). */
export function encodePaymasterData(w: PaymasterWindow, signature: Hex): Hex {
  return concat([encodeAbiParameters([{ type: 'uint48' }, { type: 'uint48' }], [w.validUntil, w.validAfter]), signature])
}

/**
 * A signature of the right shape that recovers to no one: what gas is estimated with
 * (the contract answers "signature failed" rather than reverting, so estimation goes through).
 */
export const STUB_PAYMASTER_SIGNATURE: Hex = `0x${'ff'.repeat(32)}${'7a'.repeat(32)}1c`

/** The signer's signature over the operation (an EIP-191 personal message of the hash). */
export async function signPaymasterData(signer: LocalAccount, op: SponsoredUserOperation, chainId: number, paymaster: Address, w: PaymasterWindow): Promise<Hex> {
  const hash = paymasterHash(op, chainId, paymaster, w)
  const signature = await signer.signMessage({ message: { raw: hash } })
  return encodePaymasterData(w, signature)
}
