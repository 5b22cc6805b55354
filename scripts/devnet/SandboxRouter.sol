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
// Compiled for the `paris` EVM (ganache 7 stops at Shanghai) by scripts/devnet/compile.ts.
pragma solidity 0.8.37;

interface IERC20Like {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

contract SandboxRouter {
    struct Rate { uint256 num; uint256 den; }

    address public owner;
    mapping(address => mapping(address => Rate)) public rates;

    event Swapped(address indexed payer, address indexed recipient, address fromToken, address toToken, uint256 amountIn, uint256 amountOut);
    event RateSet(address indexed fromToken, address indexed toToken, uint256 num, uint256 den);

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
}
