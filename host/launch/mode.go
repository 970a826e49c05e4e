package launch

import (
	"github.com/mmcp-dev/mmcp/host/settings"
	"github.com/mmcp-dev/mmcp/sdk"
)

// The environment modes (host/settings says what each holds).
const (
	ModeE2E  = settings.ModeE2E
	ModeProd = settings.ModeProd
	// DefaultMode is the mode of a host started without --mode, MMCP_MODE
	// or the config file's "mode".
	DefaultMode = settings.DefaultMode
)

// Modes lists the environment modes.
var Modes = settings.Modes

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
// prod-mode launch lacks (the prod environment has no fixture server,
// chain, contract seeding or ports: docs/modes.md), nil when there is none.
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
	case in.FromCheckpoint != "":
		field, what = "fromCheckpoint", "a checkpoint's chain and wallet state are loaded into the local chain and served by the fixture server"
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
