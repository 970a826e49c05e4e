package checkpoint

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Saved is a checkpoint with its chain's state: what a fork (mm_launch
// fromCheckpoint) starts from, and what a checkpoint file holds.
type Saved struct {
	*Checkpoint
	// ChainState is the chain's full state (anvil_dumpState's answer, a
	// JSON string), nil when the checkpoint has no chain.
	ChainState json.RawMessage
	// From says where it was read: its folder, or the file.
	From string
}

// LoadSaved reads checkpoint name with its chain state.
func (s Store) LoadSaved(name string) (*Saved, error) {
	c, err := s.Load(name)
	if err != nil {
		return nil, err
	}
	state, err := s.ChainState(name)
	if err != nil {
		return nil, err
	}
	return &Saved{Checkpoint: c, ChainState: state, From: s.Path(name)}, nil
}

// ChainPort is the port of the chain the checkpoint was saved on, as its
// wallet state names it.
func (c *Checkpoint) ChainPort() int {
	if c.Chain == nil || c.Chain.Port == 0 {
		return sdk.DefaultAnvilPort
	}
	return c.Chain.Port
}

// WalletFor is the checkpoint's wallet state with its local chain's RPC
// URLs (http://localhost:<port>, http://127.0.0.1:<port>) pointed at a
// chain on port instead: a fork's chain runs beside the original's.
func (c *Checkpoint) WalletFor(port int) json.RawMessage {
	from := c.ChainPort()
	if port == 0 || port == from {
		return c.Wallet
	}
	re := regexp.MustCompile(fmt.Sprintf(`://(localhost|127\.0\.0\.1):%d\b`, from))
	return re.ReplaceAll(c.Wallet, []byte(fmt.Sprintf("://$1:%d", port)))
}
