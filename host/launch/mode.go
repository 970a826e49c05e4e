package launch

import "github.com/mmcp-dev/mmcp/sdk"

// The environment modes of spec 001. ModeE2E is the end-to-end testing
// environment: a local chain, the fixture server and its wallet states,
// contract seeding, the mock server, the default password, fixed ports.
// ModeProd is a production-like run of the extension with none of those:
// the extension starts as installed (onboarding) and reaches the network
// it is configured for.
const (
	ModeE2E  = "e2e"
	ModeProd = "prod"
	// DefaultMode is the mode of a host started without --mode, MMCP_MODE
	// or the config file's "mode".
	DefaultMode = ModeE2E
)

// Modes lists the environment modes.
var Modes = []string{ModeE2E, ModeProd}

// CheckMode is nil for a known mode, else MM_INVALID_CONFIG.
func CheckMode(mode string) error {
	for _, m := range Modes {
		if mode == m {
			return nil
		}
	}
	return sdk.Errorf(sdk.CodeInvalidConfig, "unknown environment mode %q: want %s or %s", mode, ModeE2E, ModeProd).
		WithDetails(map[string]any{"modes": Modes})
}

// prodRefuses is MM_NOT_IN_MODE for the first argument of in that a
// prod-mode launch lacks (spec 001's prod environment has no fixture
// server, chain, contract seeding or ports), nil when there is none.
// stateMode default and onboarding both start the extension as installed.
func prodRefuses(in Input, tool func(string) string) error {
	field, what := "", ""
	switch {
	case len(in.SeedContracts) > 0:
		field, what = "seedContracts", "contracts are deployed on the local chain"
	case in.FixturePreset != "":
		field, what = "fixturePreset", "wallet states are served by the fixture server"
	case len(in.Fixture) > 0:
		field, what = "fixture", "wallet states are served by the fixture server"
	case in.StateMode == "custom":
		field, what = "stateMode", "stateMode custom is a wallet state the fixture server serves"
	case in.Ports.Anvil != 0:
		field, what = "ports.anvil", "the local chain's port"
	case in.Ports.FixtureServer != 0:
		field, what = "ports.fixtureServer", "the fixture server's port"
	default:
		return nil
	}
	return sdk.Errorf(sdk.CodeNotInMode, "%s needs the e2e environment mode (%s), and this session's mode is prod, "+
		"a production-like run without a chain, wallet states, contracts or mocks: leave %s out, or call %s with context e2e",
		field, what, field, tool("set_context")).
		WithDetails(map[string]any{"field": field, "mode": ModeProd})
}
