package mockserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Version is the plugin's version string.
const Version = "0.1.0"

// Plugin is the mock server plugin. It implements sdk.Plugin,
// sdk.MockServer and sdk.ToolProvider; the zero value is not usable, call
// New.
type Plugin struct {
	sdk.ToolSet // the standalone tools (tools.go)

	log   hclog.Logger
	store *store
	conf  sdk.Configured[Settings]

	mu    sync.Mutex
	proxy *proxy // nil while stopped
}

// New returns a mock server plugin logging to log (nil means no logging).
func New(log hclog.Logger) *Plugin {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	p := &Plugin{log: log, store: &store{}}
	_ = p.conf.Set("mockserver", sdk.Config{}, (*Settings).check) // the defaults until Configure
	p.addTools()
	return p
}

// Info implements sdk.Plugin.
func (p *Plugin) Info() sdk.Info { return sdk.Info{Name: "mockserver", Version: Version} }

// Configure implements sdk.Plugin: it reads the settings and loads the
// mocks (the defaults and the workspace's files). A bad mock file is only
// logged here; Start reports it.
func (p *Plugin) Configure(_ context.Context, cfg sdk.Config) error {
	if err := p.conf.Set("mockserver", cfg, (*Settings).check); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.loadLocked(); err != nil {
		p.log.Warn("mock files", "error", err)
	}
	return nil
}

// loadLocked (re)loads the mocks of the defaults and the mock files.
func (p *Plugin) loadLocked() error {
	cfg, settings := p.conf.Get()
	ms, err := loadMocks(settings.defaults(), sdk.WorkspaceDirs(cfg.Workspace, "mocks", settings.MockDirs))
	if err != nil {
		return err
	}
	p.store.setFiles(ms)
	return nil
}

// StartMockServer implements sdk.MockServer: it reloads the mock files,
// generates a fresh CA and starts the proxy on 127.0.0.1 (req.Port, else
// the port setting, else a free port). A proxy that already runs is
// replaced, and the request records start empty (a new session). A busy
// port is MM_PORT_IN_USE, a bad mock file MM_INVALID_CONFIG.
func (p *Plugin) StartMockServer(_ context.Context, req sdk.StartMockServerRequest) (sdk.StartMockServerResponse, error) {
	st, err := p.start(req.MockServerOptions)
	return sdk.StartMockServerResponse{Status: st}, err
}

func (p *Plugin) start(opts sdk.MockServerOptions) (sdk.MockServerStatus, error) {
	if opts.Port < 0 || opts.Port > 65535 {
		return sdk.MockServerStatus{}, sdk.Errorf(sdk.CodeInvalidInput, "port must be between 0 and 65535, got %d", opts.Port).
			WithDetails(map[string]any{"field": "port"})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
	p.store.clear(func(string) bool { return true }, true)
	if err := p.loadLocked(); err != nil {
		return sdk.MockServerStatus{}, err
	}
	_, settings := p.conf.Get()
	port := opts.Port
	if port == 0 {
		port = settings.Port
	}
	ca, err := newAuthority()
	if err != nil {
		return sdk.MockServerStatus{}, fmt.Errorf("generate the session CA: %w", err)
	}
	px, err := listen(fmt.Sprintf("127.0.0.1:%d", port), ca, p.store, settings.UnmatchedStatus, p.log)
	if errors.Is(err, syscall.EADDRINUSE) {
		return sdk.MockServerStatus{}, sdk.Errorf(sdk.CodePortInUse, "the mock server cannot listen on 127.0.0.1:%d: the port is in use; stop what listens there or leave the port unset for a free one", port).
			WithDetails(map[string]any{"port": port})
	}
	if err != nil {
		return sdk.MockServerStatus{}, fmt.Errorf("mock server listen: %w", err)
	}
	p.proxy = px
	st := p.statusLocked()
	p.log.Info("mock server started", "address", st.Address, "spki", st.SPKIHash)
	return st, nil
}

// Stop implements sdk.Plugin: it stops the proxy (StopMockServer).
func (p *Plugin) Stop(ctx context.Context) error {
	_, err := p.StopMockServer(ctx, sdk.StopMockServerRequest{})
	return err
}

// StopMockServer implements sdk.MockServer: it stops the proxy, forgets
// the CA and ends the session's mocks and records (the tools' mocks and
// every request record; the files' mocks stay). It is safe to call when
// nothing runs.
func (p *Plugin) StopMockServer(context.Context, sdk.StopMockServerRequest) (sdk.StopMockServerResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proxy == nil {
		return sdk.StopMockServerResponse{}, nil
	}
	p.stopLocked()
	p.store.clear(func(src string) bool { return src != sourceTool }, true)
	return sdk.StopMockServerResponse{}, nil
}

func (p *Plugin) stopLocked() {
	if p.proxy == nil {
		return
	}
	if err := p.proxy.close(); err != nil {
		p.log.Warn("stopping the mock server", "error", err)
	}
	p.log.Info("mock server stopped", "port", p.proxy.port())
	p.proxy = nil
}

// MockServerStatus implements sdk.MockServer.
func (p *Plugin) MockServerStatus(context.Context, sdk.MockServerStatusRequest) (sdk.MockServerStatusResponse, error) {
	return sdk.MockServerStatusResponse{Status: p.status()}, nil
}

func (p *Plugin) status() sdk.MockServerStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.statusLocked()
}

func (p *Plugin) statusLocked() sdk.MockServerStatus {
	if p.proxy == nil {
		return sdk.MockServerStatus{}
	}
	port := p.proxy.port()
	return sdk.MockServerStatus{Running: true, Address: net.JoinHostPort("127.0.0.1", fmt.Sprint(port)), Port: port, SPKIHash: p.proxy.ca.spkiHash()}
}

var (
	_ sdk.Plugin       = (*Plugin)(nil)
	_ sdk.MockServer   = (*Plugin)(nil)
	_ sdk.ToolProvider = (*Plugin)(nil)
)
