// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/**
 * Slipway's verifying paymaster (ERC-4337 v0.8): it pays for a user operation that carries,
 * in its paymasterData, a signature of Slipway's paymaster signer over the operation (sender,
 * nonce, init code, call data, gas limits and fees), this chain, this contract and a validity
 * window. The signer only signs what the tenant's gas policy allows (src/modules/gas-sponsorship);
 * the binding to sender, nonce and call data is what makes a signature useless on another
 * operation. Written after the VerifyingPaymaster sample of eth-infinitism/account-abstraction.
 *
 * paymasterData = abi.encode(uint48 validUntil, uint48 validAfter) ++ signature (65 bytes)
 */
import "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import "@account-abstraction/contracts/core/BasePaymaster.sol";
import "@account-abstraction/contracts/core/Helpers.sol";
import "@account-abstraction/contracts/core/UserOperationLib.sol";

contract SlipwayPaymaster is BasePaymaster {
    using UserOperationLib for PackedUserOperation;

    address public verifyingSigner;

    uint256 private constant VALID_TIMESTAMP_OFFSET = PAYMASTER_DATA_OFFSET;
    uint256 private constant SIGNATURE_OFFSET = VALID_TIMESTAMP_OFFSET + 64;

    event SignerChanged(address signer);

    constructor(IEntryPoint anEntryPoint, address aSigner, address anOwner) BasePaymaster(anEntryPoint) {
        verifyingSigner = aSigner;
        _transferOwnership(anOwner);
    }

    /** a rotated signer key: the owner names the new signer */
    function setSigner(address aSigner) external onlyOwner {
        verifyingSigner = aSigner;
        emit SignerChanged(aSigner);
    }

    /** what the signer signs (as an EIP-191 personal message) */
    function getHash(PackedUserOperation calldata userOp, uint48 validUntil, uint48 validAfter) public view returns (bytes32) {
        return keccak256(abi.encode(
            userOp.sender,
            userOp.nonce,
            keccak256(userOp.initCode),
            keccak256(userOp.callData),
            userOp.accountGasLimits,
            uint256(bytes32(userOp.paymasterAndData[PAYMASTER_VALIDATION_GAS_OFFSET:PAYMASTER_DATA_OFFSET])),
            userOp.preVerificationGas,
            userOp.gasFees,
            block.chainid,
            address(this),
            validUntil,
            validAfter
        ));
    }

    function _validatePaymasterUserOp(PackedUserOperation calldata userOp, bytes32, uint256)
        internal view override returns (bytes memory context, uint256 validationData) {
        (uint48 validUntil, uint48 validAfter, bytes calldata signature) = parsePaymasterAndData(userOp.paymasterAndData);
        require(signature.length == 65, "SlipwayPaymaster: signature must be 65 bytes");
        bytes32 hash = MessageHashUtils.toEthSignedMessageHash(getHash(userOp, validUntil, validAfter));
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, signature);
        bool failed = err != ECDSA.RecoverError.NoError || recovered != verifyingSigner;
        return ("", _packValidationData(failed, validUntil, validAfter));
    }

    function parsePaymasterAndData(bytes calldata paymasterAndData)
        public pure returns (uint48 validUntil, uint48 validAfter, bytes calldata signature) {
        (validUntil, validAfter) = abi.decode(paymasterAndData[VALID_TIMESTAMP_OFFSET:SIGNATURE_OFFSET], (uint48, uint48));
        signature = paymasterAndData[SIGNATURE_OFFSET:];
    }
}
