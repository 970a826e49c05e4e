// Package settings holds the host's defaults, each written once, and the
// value types of its settings (a viewport, a config file's plugin entry).
// host/config's table documents the defaults and turns them into flags,
// environment lookups and the reference's table; the packages that apply
// a default (browser, session, launch, knowledge, visual) read it here.
// It imports nothing of the host, so every host package may import it.
package settings

import "time"

// The host's defaults.
const (
	// DefaultLogLevel is the log level without --log-level or
	// MMCP_LOG_LEVEL.
	DefaultLogLevel = "info"
	// DefaultToolPrefix prefixes the built-in tools' names (mm_click).
	DefaultToolPrefix = "mm"
	// DefaultArtifactsDir is where artifacts go in a workspace, relative to
	// it (with no workspace: StateDir of host/config).
	DefaultArtifactsDir = "test-artifacts"
	// DefaultConfigFile is the workspace's config file, relative to it.
	DefaultConfigFile = ".mmcp/config.json"
	// DefaultMaxTabs bounds the tabs of a session.
	DefaultMaxTabs = 10
	// DefaultMaxSessions is how many wallet sessions one host runs at once.
	DefaultMaxSessions = 4
	// DefaultStandby is how many sessions a host keeps launched ahead for
	// the default launch: none.
	DefaultStandby = 0
	// DefaultSettleTimeout bounds the wait for the extension to show a
	// recognized screen, and the unlock.
	DefaultSettleTimeout = 30 * time.Second
	// DefaultMaxRequestBytes is the largest MCP request: room for a custom
	// fixture, far from a memory problem.
	DefaultMaxRequestBytes = 4 << 20
	// DefaultMaxRecordBytes is the size cap of one step record file. A
	// record never exceeds it: an input over a quarter of it, or nested
	// too deep, is stored as its size and shape; long error details are
	// cut; then the observation's tree and testids are shortened until the
	// record fits.
	DefaultMaxRecordBytes = 64 << 10
	// DefaultBaselineDir is where visual baselines live, relative to the
	// workspace; without a workspace they live in
	// <artifacts>/visual-baselines.
	DefaultBaselineDir = "test/visual-baselines"
	// TestWallet is the --extension value that names the embedded test
	// wallet.
	TestWallet = "testwallet"
)

// The environment modes. ModeE2E is the end-to-end testing environment: a
// local chain, the fixture server and its wallet states, contract seeding,
// the mock server, the default password, fixed ports. ModeProd is a
// production-like run of the extension with none of those: the extension
// starts as installed (onboarding) and reaches the network it is
// configured for.
const (
	ModeE2E  = "e2e"
	ModeProd = "prod"
	// DefaultMode is the mode of a host started without --mode, MMCP_MODE
	// or the config file's "mode".
	DefaultMode = ModeE2E
)

// Modes lists the environment modes.
var Modes = []string{ModeE2E, ModeProd}

// DefaultViewport is the page viewport of a launched Chrome: the one most
// test suites and peer servers use.
var DefaultViewport = Viewport{Width: 1280, Height: 720}

// PluginEntry is one plugin of the config file.
type PluginEntry struct {
	// Path of the binary, relative to the workspace or absolute.
	Path string `json:"path"`
	// SHA256 pins the binary (hex).
	SHA256 string `json:"sha256,omitempty"`
}
