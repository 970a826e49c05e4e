package sdk

import (
	"os"

	"github.com/hashicorp/go-hclog"
)

// EnvLogLevel sets a plugin's log level when the host has not configured it
// yet (the host passes its own level in Config.LogLevel too).
const EnvLogLevel = "MMCP_LOG_LEVEL"

// Logger returns the logger a plugin should use. It writes to stderr, never
// stdout: served by the host it writes JSON, which go-plugin forwards into
// the host's log with the right levels; run standalone it writes plain text.
func Logger(name string) hclog.Logger {
	served := os.Getenv(Handshake.MagicCookieKey) == Handshake.MagicCookieValue
	lvl := hclog.LevelFromString(os.Getenv(EnvLogLevel))
	if lvl == hclog.NoLevel {
		lvl = hclog.Info
	}
	return hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      lvl,
		Output:     os.Stderr,
		JSONFormat: served,
	})
}
