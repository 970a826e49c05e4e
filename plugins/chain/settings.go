package chain

import (
	"fmt"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Defaults of MetaMask's E2E Anvil.
const (
	// DefaultMnemonic is the SRP of MetaMask's default test wallet.
	DefaultMnemonic = "spread raise short crane omit tent fringe mandate neglect detail suspect cradle"
	// DefaultBalance is the balance of every dev account, in ether.
	DefaultBalance int64 = 25
	// DefaultBlockTime is 0: automine, one block per transaction.
	DefaultBlockTime = 0
)

// Settings is the plugin's section of the mmcp config. Every field is
// optional; zero means the default.
type Settings struct {
	// AnvilPath is the Anvil binary, absolute or relative to the workspace.
	AnvilPath string `json:"anvilPath,omitempty"`
	// ChainOptions are the node's options as settings (port, chainId,
	// mnemonic, balance in ether, hardfork, blockTime in seconds, rpcUrl,
	// freePort); a start's own options override them. The mnemonic is
	// never logged.
	sdk.ChainOptions
}

// check refuses settings out of range (sdk.Configured.Set decodes them
// strictly first).
func (s *Settings) check() error {
	if s.Port < 0 || s.Port > 65535 || s.BlockTime < 0 || s.Balance < 0 || s.ChainID < 0 {
		return sdk.Errorf(sdk.CodeInvalidConfig, "invalid chain settings: port, chainId, balance and blockTime must be positive")
	}
	return nil
}

// resolve merges start options over settings over defaults.
func resolve(s Settings, o sdk.ChainOptions) (sdk.ChainOptions, error) {
	if o.Port < 0 || o.Port > 65535 || o.BlockTime < 0 || o.Balance < 0 || o.ChainID < 0 {
		return o, sdk.Errorf(sdk.CodeInvalidInput, "port, chainId, balance and blockTime must be positive")
	}
	r := sdk.ChainOptions{
		Port:      firstInt(o.Port, s.Port, sdk.DefaultAnvilPort),
		ChainID:   firstInt64(o.ChainID, s.ChainID, sdk.DefaultChainID),
		Mnemonic:  firstString(o.Mnemonic, s.Mnemonic, DefaultMnemonic),
		Balance:   firstInt64(o.Balance, s.Balance, DefaultBalance),
		Hardfork:  firstString(o.Hardfork, s.Hardfork, sdk.DefaultHardfork),
		BlockTime: firstInt(o.BlockTime, s.BlockTime, DefaultBlockTime),
		RPCURL:    firstString(o.RPCURL, s.RPCURL, ""),
		FreePort:  o.FreePort || s.FreePort,
	}
	return r, nil
}

// anvilArgs is MetaMask's Anvil command line for the options.
func anvilArgs(o sdk.ChainOptions) []string {
	args := []string{
		"--balance", fmt.Sprint(o.Balance),
		"--chain-id", fmt.Sprint(o.ChainID),
		"--gas-limit", "30000000",
		"--gas-price", "2000000000",
		"--hardfork", o.Hardfork,
		"--host", "127.0.0.1",
		"--mnemonic", o.Mnemonic,
		"--port", fmt.Sprint(o.Port),
		"--color", "never",
	}
	if o.BlockTime > 0 {
		args = append(args, "--block-time", fmt.Sprint(o.BlockTime))
	}
	return args
}

func firstInt(v ...int) int {
	for _, x := range v {
		if x != 0 {
			return x
		}
	}
	return 0
}

func firstInt64(v ...int64) int64 {
	for _, x := range v {
		if x != 0 {
			return x
		}
	}
	return 0
}

func firstString(v ...string) string {
	for _, x := range v {
		if x != "" {
			return x
		}
	}
	return ""
}
