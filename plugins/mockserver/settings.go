package mockserver

import (
	"net/http"

	"github.com/mmcp-dev/mmcp/sdk"
)

// DefaultUnmatchedStatus answers a request no mock matches: the proxy
// could not get a response for it (502 Bad Gateway), at once.
const DefaultUnmatchedStatus = http.StatusBadGateway

// Settings is the plugin's section of the mmcp config. Every field is
// optional.
type Settings struct {
	// Port the proxy listens on (127.0.0.1 only); 0 means a free port.
	Port int `json:"port,omitempty"`
	// DefaultMocks loads the built-in mocks of MetaMask's start-up
	// endpoints; nil means true.
	DefaultMocks *bool `json:"defaultMocks,omitempty"`
	// MockDirs are more directories of mock files (*.json), relative to
	// the workspace unless absolute, read after <workspace>/.mmcp/mocks.
	MockDirs []string `json:"mockDirs,omitempty"`
	// UnmatchedStatus is the status of a request no mock matches; 0 means
	// DefaultUnmatchedStatus.
	UnmatchedStatus int `json:"unmatchedStatus,omitempty"`
}

// check refuses settings out of range and fills in the defaults
// (sdk.Configured.Set decodes them strictly first).
func (s *Settings) check() error {
	if s.Port < 0 || s.Port > 65535 {
		return sdk.Errorf(sdk.CodeInvalidConfig, "mockserver plugin setting port must be between 0 and 65535, got %d", s.Port)
	}
	if s.UnmatchedStatus != 0 && (s.UnmatchedStatus < 400 || s.UnmatchedStatus > 999) {
		return sdk.Errorf(sdk.CodeInvalidConfig, "mockserver plugin setting unmatchedStatus must be a failure status (400-999), got %d", s.UnmatchedStatus)
	}
	if s.UnmatchedStatus == 0 {
		s.UnmatchedStatus = DefaultUnmatchedStatus
	}
	return nil
}

// defaults reports whether the built-in mocks load.
func (s Settings) defaults() bool { return s.DefaultMocks == nil || *s.DefaultMocks }
