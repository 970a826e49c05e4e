package contracts

import (
	"context"
	"os"
	"sync"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Version is the plugin's version string.
const Version = "0.1.0"

// Plugin deploys seedable contracts and remembers what it deployed. It
// implements sdk.Plugin, sdk.ContractSeeder and sdk.ToolProvider.
type Plugin struct {
	sdk.ToolSet // the standalone tools (tools.go)

	log        hclog.Logger
	getenv     func(string) string
	executable func() (string, error)
	catalog    *catalog
	registry   registry

	conf sdk.Configured[Settings]

	mu      sync.Mutex
	clients map[string]*rpc.Client // by RPC URL
}

// New returns a contracts plugin logging to log (nil means no logging).
func New(log hclog.Logger) *Plugin {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	p := &Plugin{
		log:        log,
		getenv:     os.Getenv,
		executable: os.Executable,
		catalog:    newCatalog(),
		clients:    map[string]*rpc.Client{},
	}
	p.addTools()
	return p
}

// Info implements sdk.Plugin.
func (p *Plugin) Info() sdk.Info { return sdk.Info{Name: "contracts", Version: Version} }

// Configure implements sdk.Plugin: it reads the settings.
func (p *Plugin) Configure(ctx context.Context, cfg sdk.Config) error {
	return p.conf.Set("contracts", cfg, nil)
}

// Stop implements sdk.Plugin: it closes the RPC clients. The registry is
// kept.
func (p *Plugin) Stop(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for url, c := range p.clients {
		c.Close()
		delete(p.clients, url)
	}
	return nil
}

// Deployed implements sdk.ContractSeeder.
func (p *Plugin) Deployed(context.Context, sdk.DeployedRequest) (sdk.DeployedResponse, error) {
	return sdk.DeployedResponse{Deployments: p.registry.list()}, nil
}

// Clear implements sdk.ContractSeeder.
func (p *Plugin) Clear(context.Context, sdk.ClearRequest) (sdk.ClearResponse, error) {
	p.registry.clear()
	return sdk.ClearResponse{}, nil
}

// Available implements sdk.ContractSeeder: the nine built-ins and the
// deployable artifacts, sorted.
func (p *Plugin) Available(context.Context, sdk.AvailableRequest) (sdk.AvailableResponse, error) {
	return sdk.AvailableResponse{Names: p.available()}, nil
}

func (p *Plugin) available() []string {
	names := builtinNames()
	for n := range p.customArtifacts() {
		names = append(names, n)
	}
	return sortedUnique(names)
}

// customArtifacts scans the configured artifact directories.
func (p *Plugin) customArtifacts() map[string]customArtifact {
	cfg, settings := p.conf.Get()
	ws, dirs := cfg.Workspace, settings.ArtifactDirs
	if len(dirs) == 0 {
		return nil
	}
	return scanArtifacts(ws, dirs)
}

var (
	_ sdk.Plugin         = (*Plugin)(nil)
	_ sdk.ContractSeeder = (*Plugin)(nil)
	_ sdk.ToolProvider   = (*Plugin)(nil)
)
