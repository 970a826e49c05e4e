package chain

import (
	"context"
	"sync"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/plugins/chain/anvilpath"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Version is the plugin's version string.
const Version = "0.1.0"

// Plugin runs or attaches to one local chain at a time. It implements
// sdk.Plugin, sdk.Chain and sdk.ToolProvider. The zero value is not usable;
// call New.
type Plugin struct {
	sdk.ToolSet // the standalone tools (tools.go)

	log hclog.Logger
	env anvilpath.Env

	conf sdk.Configured[Settings]

	mu   sync.Mutex
	node *node // nil while no chain runs
}

// node is the running (or attached) chain.
type node struct {
	opts     sdk.ChainOptions
	rpcURL   string
	external bool
	proc     *anvilProcess // nil when external
	rpc      *rpc.Client
	eth      *ethclient.Client
}

// New returns a chain plugin logging to log (nil means no logging).
func New(log hclog.Logger) *Plugin {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	p := &Plugin{log: log, env: anvilpath.OSEnv}
	p.addTools()
	return p
}

// Info implements sdk.Plugin.
func (p *Plugin) Info() sdk.Info { return sdk.Info{Name: "chain", Version: Version} }

// Configure implements sdk.Plugin: it reads the settings.
func (p *Plugin) Configure(ctx context.Context, cfg sdk.Config) error {
	return p.conf.Set("chain", cfg, (*Settings).check)
}

// Stop implements sdk.Plugin: it stops the chain (StopChain).
func (p *Plugin) Stop(ctx context.Context) error {
	_, err := p.StopChain(ctx, sdk.StopChainRequest{})
	return err
}

// StopChain implements sdk.ChainLifecycle: it stops Anvil (the whole
// process group) or forgets an external node. It is safe to call when
// nothing runs.
func (p *Plugin) StopChain(ctx context.Context, _ sdk.StopChainRequest) (sdk.StopChainResponse, error) {
	return sdk.StopChainResponse{}, p.stopNode(ctx)
}

func (p *Plugin) stopNode(ctx context.Context) error {
	p.mu.Lock()
	n := p.node
	p.node = nil
	p.mu.Unlock()
	if n == nil {
		return nil
	}
	n.rpc.Close()
	if n.proc == nil {
		return nil
	}
	p.log.Info("stopping anvil", "port", n.opts.Port)
	return n.proc.stop(ctx)
}

// current returns the running node, or MM_CHAIN_NOT_RUNNING. An Anvil that
// died on its own is forgotten.
func (p *Plugin) current() (*node, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.node != nil && p.node.proc != nil && p.node.proc.exited() {
		p.log.Warn("anvil exited on its own", "port", p.node.opts.Port)
		p.node.rpc.Close()
		p.node = nil
	}
	if p.node == nil {
		return nil, sdk.Errorf(sdk.CodeChainNotRunning, "no local chain is running; start one with the chain's start tool (or mm_launch)")
	}
	return p.node, nil
}

var (
	_ sdk.Plugin       = (*Plugin)(nil)
	_ sdk.Chain        = (*Plugin)(nil)
	_ sdk.ToolProvider = (*Plugin)(nil)
)
