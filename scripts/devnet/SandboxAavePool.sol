// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// The two structs of Aave v3's IPool that the devnet pool answers with, written here (Aave's
// own sources are under BUSL-1.1, which Slipway does not ship): the layout of
// getReserveData's answer, DataTypes.ReserveDataLegacy, field for field as in the IPool ABI
// of the aave-address-book npm package (MIT) that Slipway calls.
// tests/lending/pool-abi.test.ts checks the compiled ABI against that one.
library DataTypes {
    struct ReserveConfigurationMap {
        uint256 data;
    }

    struct ReserveDataLegacy {
        ReserveConfigurationMap configuration;
        uint128 liquidityIndex;
        uint128 currentLiquidityRate;
        uint128 variableBorrowIndex;
        uint128 currentVariableBorrowRate;
        uint128 currentStableBorrowRate;
        uint40 lastUpdateTimestamp;
        uint16 id;
        address aTokenAddress;
        address stableDebtTokenAddress;
        address variableDebtTokenAddress;
        address interestRateStrategyAddress;
        uint128 accruedToTreasury;
        uint128 unbacked;
        uint128 isolationModeTotalDebt;
    }
}

interface IERC20Min {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
    function decimals() external view returns (uint8);
}

/**
 * The devnet's aToken: minted 1:1 on supply and burned on withdraw (no interest accrues, so
 * balanceOf is exactly what was supplied and not yet withdrawn). It holds the supplied
 * underlying, as Aave's aTokens do. Only its pool mints and burns.
 */
contract SandboxAToken {
    address public immutable POOL;
    address public immutable UNDERLYING_ASSET_ADDRESS;
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(address pool, address underlying, string memory name_, string memory symbol_, uint8 decimals_) {
        POOL = pool;
        UNDERLYING_ASSET_ADDRESS = underlying;
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    modifier onlyPool() {
        require(msg.sender == POOL, "CALLER_MUST_BE_POOL");
        _;
    }

    function mint(address to, uint256 amount) external onlyPool {
        balanceOf[to] += amount;
        totalSupply += amount;
        emit Transfer(address(0), to, amount);
    }

    function burn(address from, address receiver, uint256 amount) external onlyPool {
        require(balanceOf[from] >= amount, "NOT_ENOUGH_AVAILABLE_USER_BALANCE");
        balanceOf[from] -= amount;
        totalSupply -= amount;
        emit Transfer(from, address(0), amount);
        require(IERC20Min(UNDERLYING_ASSET_ADDRESS).transfer(receiver, amount), "UNDERLYING_TRANSFER_FAILED");
    }
}

/**
 * A minimal pool with the parts of Aave v3's IPool that Slipway calls, with the same
 * signatures and answers: supply, withdraw (type(uint256).max withdraws everything),
 * getUserAccountData (collateral in the base currency, 8 decimals, no debt: health factor
 * type(uint256).max as Aave answers it), getReserveData (DataTypes.ReserveDataLegacy with the
 * aToken, the supply rate in ray and the last update) and getReservesList.
 *
 * Its code is copied to Aave's Sepolia Pool address on the devnet (no constructor runs
 * there), so it keeps no constructor state: reserves are listed afterwards with
 * `listReserve`, which anyone may call once per asset (a devnet contract: nothing of value).
 * `setLiquidityRate` changes a reserve's supply rate, so rate history can be shown moving.
 */
contract SandboxAavePool {
    struct Reserve {
        address aToken;
        uint128 liquidityRate;
        uint40 lastUpdateTimestamp;
        uint16 id;
        uint8 decimals;
        /** the asset's price in the base currency (8 decimals, as Aave's oracle answers USD) */
        uint256 priceBase;
    }

    /** bits 0-15 LTV and 16-31 liquidation threshold (basis points), as in ReserveConfigurationMap; bit 56 active */
    uint256 internal constant LTV = 7500;
    uint256 internal constant LIQUIDATION_THRESHOLD = 8000;

    mapping(address => Reserve) internal reserves;
    address[] internal reservesList;

    event ReserveListed(address indexed asset, address aToken);
    event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode);
    event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount);

    function listReserve(address asset, string calldata aTokenName, string calldata aTokenSymbol, uint128 liquidityRate, uint256 priceBase) external returns (address aToken) {
        require(reserves[asset].aToken == address(0), "RESERVE_ALREADY_INITIALIZED");
        uint8 decimals = IERC20Min(asset).decimals();
        aToken = address(new SandboxAToken(address(this), asset, aTokenName, aTokenSymbol, decimals));
        reserves[asset] = Reserve(aToken, liquidityRate, uint40(block.timestamp), uint16(reservesList.length), decimals, priceBase);
        reservesList.push(asset);
        emit ReserveListed(asset, aToken);
    }

    function setLiquidityRate(address asset, uint128 liquidityRate) external {
        require(reserves[asset].aToken != address(0), "RESERVE_NOT_LISTED");
        reserves[asset].liquidityRate = liquidityRate;
        reserves[asset].lastUpdateTimestamp = uint40(block.timestamp);
    }

    function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external {
        Reserve storage r = reserves[asset];
        require(r.aToken != address(0), "RESERVE_NOT_LISTED");
        require(amount != 0, "INVALID_AMOUNT");
        require(IERC20Min(asset).transferFrom(msg.sender, r.aToken, amount), "TRANSFER_FAILED");
        SandboxAToken(r.aToken).mint(onBehalfOf, amount);
        emit Supply(asset, msg.sender, onBehalfOf, amount, referralCode);
    }

    function withdraw(address asset, uint256 amount, address to) external returns (uint256) {
        Reserve storage r = reserves[asset];
        require(r.aToken != address(0), "RESERVE_NOT_LISTED");
        uint256 balance = SandboxAToken(r.aToken).balanceOf(msg.sender);
        uint256 amountToWithdraw = amount == type(uint256).max ? balance : amount;
        require(amountToWithdraw != 0, "INVALID_AMOUNT");
        require(amountToWithdraw <= balance, "NOT_ENOUGH_AVAILABLE_USER_BALANCE");
        SandboxAToken(r.aToken).burn(msg.sender, to, amountToWithdraw);
        emit Withdraw(asset, msg.sender, to, amountToWithdraw);
        return amountToWithdraw;
    }

    function getUserAccountData(address user) external view returns (
        uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase,
        uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor
    ) {
        for (uint256 i = 0; i < reservesList.length; i++) {
            Reserve storage r = reserves[reservesList[i]];
            totalCollateralBase += SandboxAToken(r.aToken).balanceOf(user) * r.priceBase / (10 ** r.decimals);
        }
        totalDebtBase = 0;
        availableBorrowsBase = totalCollateralBase * LTV / 10000;
        currentLiquidationThreshold = totalCollateralBase == 0 ? 0 : LIQUIDATION_THRESHOLD;
        ltv = totalCollateralBase == 0 ? 0 : LTV;
        healthFactor = type(uint256).max;
    }

    function getReserveData(address asset) external view returns (DataTypes.ReserveDataLegacy memory data) {
        Reserve storage r = reserves[asset];
        if (r.aToken == address(0)) return data;
        // LTV, liquidation threshold, decimals (bits 48-55) and the active flag (bit 56)
        data.configuration = DataTypes.ReserveConfigurationMap(LTV | (LIQUIDATION_THRESHOLD << 16) | (uint256(r.decimals) << 48) | (uint256(1) << 56));
        data.liquidityIndex = 1e27;
        data.currentLiquidityRate = r.liquidityRate;
        data.variableBorrowIndex = 1e27;
        data.lastUpdateTimestamp = r.lastUpdateTimestamp;
        data.id = r.id;
        data.aTokenAddress = r.aToken;
    }

    function getReservesList() external view returns (address[] memory) {
        return reservesList;
    }
}
