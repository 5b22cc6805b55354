// SPDX-License-Identifier: MIT
// The sandbox swap aggregator's router (src/sandbox/swap-aggregator): swaps at fixed rates on the
// devnet, so executing a sandbox quote's `transactionRequest` moves real balances.
//
// `swap` takes the input from the caller (ERC-20: `transferFrom` after the caller's `approve` of
// this router; the native coin: `msg.value`), pays the output to `recipient` from the router's
// own balance (funded by `npm run devnet`), and reverts when the output is below `minAmountOut`.
// The native coin is address(0), as in LI.FI's quotes. A rate is `amountOut = amountIn * num / den`
// in the tokens' smallest units; the owner (the devnet's funder, who deployed it) sets them from
// the one rate table the sandbox aggregator quotes with (src/sandbox/swap-aggregator/market.ts).
//
// `swapWithPermit` is the gasless swap (docs/swaps.md "Gasless swaps"): a relayer the owner allowed
// (`setRelayer`) submits the payer's EIP-2612 permit for this router and the swap in one call; the
// router takes `amountIn` of `tokenIn` from the payer, keeps `fee` of it for the relayer (repaid in
// the stablecoin for the gas it paid) and pays the native coin for `amountIn - fee` to the payer
// itself. Only allowed relayers may call it and the output goes only to the payer, because a permit
// signs neither the fee nor the minimum: anyone else holding the signature could set both.
// Compiled for the `prague` EVM (the fork the devnet's anvil nodes run, as mainnet does) by scripts/devnet/compile.ts.
pragma solidity 0.8.37;

interface IERC20Like {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
    function allowance(address owner, address spender) external view returns (uint256);
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external;
}

contract SandboxRouter {
    struct Rate { uint256 num; uint256 den; }

    address public owner;
    mapping(address => mapping(address => Rate)) public rates;
    mapping(address => bool) public relayers;

    event Swapped(address indexed payer, address indexed recipient, address fromToken, address toToken, uint256 amountIn, uint256 amountOut);
    event RateSet(address indexed fromToken, address indexed toToken, uint256 num, uint256 den);
    event RelayerSet(address indexed relayer, bool allowed);
    event GaslessSwapped(address indexed payer, address indexed relayer, address fromToken, uint256 amountIn, uint256 fee, uint256 amountOut);

    constructor() {
        owner = msg.sender;
    }

    receive() external payable {}

    function setRate(address fromToken, address toToken, uint256 num, uint256 den) external {
        require(msg.sender == owner, "owner only");
        require(den > 0, "den");
        rates[fromToken][toToken] = Rate(num, den);
        emit RateSet(fromToken, toToken, num, den);
    }

    function quote(address fromToken, address toToken, uint256 amountIn) public view returns (uint256) {
        Rate memory r = rates[fromToken][toToken];
        require(r.den > 0 && r.num > 0, "no rate");
        return amountIn * r.num / r.den;
    }

    function swap(address fromToken, address toToken, uint256 amountIn, uint256 minAmountOut, address recipient) external payable returns (uint256 amountOut) {
        require(recipient != address(0), "recipient");
        require(amountIn > 0, "amount");
        amountOut = quote(fromToken, toToken, amountIn);
        require(amountOut >= minAmountOut, "slippage: below minAmountOut");
        if (fromToken == address(0)) {
            require(msg.value == amountIn, "value");
        } else {
            require(msg.value == 0, "value");
            require(IERC20Like(fromToken).transferFrom(msg.sender, address(this), amountIn), "transferFrom");
        }
        if (toToken == address(0)) {
            (bool ok, ) = payable(recipient).call{value: amountOut}("");
            require(ok, "native payout");
        } else {
            require(IERC20Like(toToken).transfer(recipient, amountOut), "transfer");
        }
        emit Swapped(msg.sender, recipient, fromToken, toToken, amountIn, amountOut);
    }

    function setRelayer(address relayer, bool allowed) external {
        require(msg.sender == owner, "owner only");
        relayers[relayer] = allowed;
        emit RelayerSet(relayer, allowed);
    }

    function swapWithPermit(
        address payer, address tokenIn, uint256 amountIn, uint256 fee, uint256 minAmountOut, uint256 deadline, uint8 v, bytes32 r, bytes32 s
    ) external returns (uint256 amountOut) {
        require(relayers[msg.sender], "relayer only");
        require(tokenIn != address(0), "tokenIn");
        require(amountIn > 0 && fee < amountIn, "amount");
        // a permit already used (someone submitted the signature first) still leaves the allowance
        try IERC20Like(tokenIn).permit(payer, address(this), amountIn, deadline, v, r, s) {} catch {
            require(IERC20Like(tokenIn).allowance(payer, address(this)) >= amountIn, "permit");
        }
        amountOut = quote(tokenIn, address(0), amountIn - fee);
        require(amountOut >= minAmountOut, "slippage: below minAmountOut");
        require(IERC20Like(tokenIn).transferFrom(payer, address(this), amountIn), "transferFrom");
        if (fee > 0) require(IERC20Like(tokenIn).transfer(msg.sender, fee), "fee");
        (bool ok, ) = payable(payer).call{value: amountOut}("");
        require(ok, "native payout");
        emit GaslessSwapped(payer, msg.sender, tokenIn, amountIn, fee, amountOut);
    }
}
