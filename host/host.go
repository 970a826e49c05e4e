package host

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/builtin"
	"github.com/mmcp-dev/mmcp/host/config"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/knowledge/pgstore"
	"github.com/mmcp-dev/mmcp/host/plugins"
	"github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/host/visual"
	"github.com/mmcp-dev/mmcp/internal/redact"
	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/proc"
)

// Version is the host's version, printed by `mmcp version`.
var Version = "0.1.0-dev"

// Host is one running mmcp host.
type Host struct {
	cfg       config.Config
	log       hclog.Logger
	logFile   io.Closer
	plugins   *plugins.Manager
	runner    *tools.Runner
	sessions  *session.Manager
	knowledge *knowledge.Store
	shared    *pgstore.Store

	closeOnce sync.Once
}

// New resolves cfg and sets up logging; Start does the rest.
func New(cfg config.Config) (*Host, error) {
	if err := cfg.Resolve(); err != nil {
		return nil, err
	}
	h := &Host{cfg: cfg}
	out := io.Writer(os.Stderr)
	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.Path(cfg.LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		out, h.logFile = f, f
	}
	// Every log line passes the secret detector: a recovery phrase or a
	// key printed by a plugin or a child process never reaches the log.
	h.log = hclog.New(&hclog.LoggerOptions{Name: "mmcp", Level: hclog.LevelFromString(cfg.LogLevel), Output: redact.NewWriter(out)})
	return h, nil
}

// Start starts the plugins and registers the tools. It first removes the
// Chrome profiles, plugin socket directories and test wallets of hosts that were killed
// before they could.
func (h *Host) Start(ctx context.Context) error {
	stale := browser.RemoveStaleProfiles()
	for _, prefix := range []string{plugins.SocketPrefix, session.TestWalletPrefix} {
		stale = append(stale, proc.RemoveStale(os.TempDir(), prefix)...)
	}
	for _, dir := range stale {
		h.log.Info("removed what a killed host left behind", "dir", dir)
	}
	h.plugins = plugins.New(plugins.Config{
		Workspace: h.cfg.Repo, ArtifactsDir: h.cfg.ArtifactsDir, LogLevel: h.cfg.LogLevel,
		PluginPath: h.cfg.PluginPath, ConfigPlugins: h.cfg.PluginEntries(), Settings: h.cfg.PluginSettings(),
		TrustWorkspace: h.cfg.TrustWorkspacePlugins, ManifestCache: plugins.DefaultManifestCache(),
	}, h.log.Named("plugins"))
	if err := h.plugins.Start(ctx); err != nil {
		return err
	}
	if h.cfg.Repo == "" {
		h.log.Info("no workspace (pass --repo or set MMCP_REPO for a checkout): mm_launch loads the embedded test wallet, mm_build is unavailable",
			"artifacts", h.cfg.ArtifactsDir)
	}
	k, err := knowledge.Open(filepath.Join(h.cfg.ArtifactsDir, "llm-knowledge"), h.log.Named("knowledge"))
	if err != nil {
		return err
	}
	k.SetMaxRecordBytes(h.cfg.MaxRecordBytes)
	k.SetAudit(os.Getenv(knowledge.EnvRecordAudit))
	if err := h.shareKnowledge(ctx, k); err != nil {
		return err
	}
	h.knowledge = k
	c := h.cfg
	h.sessions = session.NewManager(session.Config{
		Prefix: c.ToolPrefix, Repo: c.Repo, Path: c.Path, Extension: c.Extension,
		Chrome: c.Chrome, Headless: c.Headless, CDPURL: c.CDPURL, ArtifactsDir: c.ArtifactsDir,
		Viewport: c.Viewport, MaxTabs: c.MaxTabs, SettleTimeout: c.SettleTimeout, MaxSessions: c.MaxSessions,
		Mode: c.Mode, Visual: visual.StoreIn(c.VisualBaselines, c.ArtifactsDir), Standby: c.Standby.N, StandbyCheckpoint: c.StandbyCheckpoint,
	}, h.plugins, k, h.log)
	h.runner = tools.NewRunner(h.log.Named("tools"))
	h.runner.SetObserver(h.sessions)
	h.runner.SetRecorder(h.sessions.Recorder())
	return builtin.Register(h.runner, builtin.Deps{
		Prefix: c.ToolPrefix, Sessions: h.sessions, Plugins: h.plugins, Log: h.log, Workspace: c.Repo,
	})
}

// Plugins returns the plugin manager.
func (h *Host) Plugins() *plugins.Manager { return h.plugins }

// Runner returns the tool runner.
func (h *Host) Runner() *tools.Runner { return h.runner }

// MCPServer builds an MCP server exposing every tool.
func (h *Host) MCPServer() *server.MCPServer {
	// The plugins described at the start start once the client has the
	// tool list (plugins.Manager.Release), not beside its answer.
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(context.Context, any, *mcp.ListToolsRequest, *mcp.ListToolsResult) { h.plugins.Release() })
	s := server.NewMCPServer("mmcp", Version,
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions(h.cfg.ToolPrefix)),
		server.WithHooks(hooks),
	)
	h.runner.Register(s)
	return s
}

// stdioWorkers is how many tool calls the stdio transport runs at once.
const stdioWorkers = 100

// ServeStdio serves MCP on in/out until ctx ends or in closes; the
// sessions --standby keeps launched ahead start first.
func (h *Host) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	h.sessions.KeepStandby()
	// Calls waiting for the session lock hold a worker each: with the
	// most workers mcp-go allows, a call that needs no session (knowledge)
	// still finds one.
	s := server.NewStdioServer(h.MCPServer())
	server.WithWorkerPoolSize(stdioWorkers)(s)
	s.SetErrorLogger(hclogStd(h.log))
	w := tools.NewLineWriter(out)
	s.SetContextFunc(func(ctx context.Context) context.Context { return tools.WithNotifier(ctx, w) })
	err := s.Listen(ctx, tools.LimitStdin(in, w, h.cfg.MaxRequestBytes), w)
	if err == context.Canceled || err == io.EOF {
		return nil
	}
	return err
}

// Close ends the session and stops every plugin. Safe to call twice.
func (h *Host) Close() {
	h.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if h.runner != nil {
			h.runner.Settle() // the last call's record, made after it answered
		}
		if h.sessions != nil {
			h.sessions.Close()
		}
		if h.knowledge != nil {
			h.knowledge.Close() // what is not sent stays queued for the next run
		}
		if h.shared != nil {
			h.shared.Close()
		}
		if h.plugins != nil {
			h.plugins.Shutdown(ctx)
		}
		if h.logFile != nil {
			_ = h.logFile.Close()
		}
	})
}

// Attach makes ctx act on wallet session id (see session.Manager.Attach).
func (h *Host) Attach(ctx context.Context, id string) (context.Context, *sdk.Error) {
	return h.sessions.Attach(ctx, id)
}

// Log returns the host's logger.
func (h *Host) Log() hclog.Logger { return h.log }

// Config returns the resolved configuration.
func (h *Host) Config() config.Config { return h.cfg }

// Sessions returns the session manager.
func (h *Host) Sessions() *session.Manager { return h.sessions }

// shareKnowledge connects k to the shared knowledge store of
// --knowledge-url, if any. A schema this mmcp cannot use fails the start;
// an unreachable database does not: records queue in the outbox until it
// answers.
func (h *Host) shareKnowledge(ctx context.Context, k *knowledge.Store) error {
	url := h.cfg.SharedKnowledge()
	if url == "" {
		return nil
	}
	id := pgstore.Identity(h.cfg.Repo, h.cfg.KnowledgeProject)
	pg, err := pgstore.Open(ctx, url, id)
	if errors.Is(err, pgstore.ErrUnreachable) && pg != nil {
		h.log.Warn("shared knowledge store unreachable: records queue locally until it answers", "error", err)
	} else if err != nil {
		return err
	}
	h.shared = pg
	h.log.Info("shared knowledge store", "repo", id)
	return k.SetShared(pg)
}
