package sdk

import (
	"context"
	"encoding/json"
)

// Fixture is the Fixture capability: it builds MetaMask wallet states and
// serves them at http://127.0.0.1:<port>/state.json, one server for every
// session: the default state, and one state per origin (a session's
// extension, chrome-extension://<id>).
type Fixture interface {
	// StartFixture serves req.State (substituting
	// __FIXTURE_SUBSTITUTION__ values) and returns once GET /state.json
	// answers. Without req.Origin, the state becomes the default state;
	// with it, the state of that origin, and the other origins' states
	// are left alone. The server starts on first use. A busy port is
	// CodePortInUse.
	StartFixture(ctx context.Context, req StartFixtureRequest) (StartFixtureResponse, error)
	// Forget drops an origin's state and closes its
	// FixtureStatus.OriginPort; the server stops when no state is left. An
	// unknown origin is not an error.
	Forget(ctx context.Context, req ForgetRequest) (ForgetResponse, error)
	// StopFixture stops the server and drops every state.
	StopFixture(ctx context.Context, req StopFixtureRequest) (StopFixtureResponse, error)
	// DefaultState is the onboarded default wallet.
	DefaultState(ctx context.Context, req DefaultStateRequest) (DefaultStateResponse, error)
	// OnboardingState is a wallet with no vault.
	OnboardingState(ctx context.Context, req OnboardingStateRequest) (OnboardingStateResponse, error)
	// ResolvePreset builds a named preset. An unknown name is
	// CodeInvalidConfig with details.available listing the presets.
	ResolvePreset(ctx context.Context, req ResolvePresetRequest) (ResolvePresetResponse, error)
}

// WalletState is a whole fixture: {"data": {...}, "meta": {...}}.
type WalletState = json.RawMessage

// StateOptions parameterize the built states.
type StateOptions struct {
	// AnvilPort is the port of the local chain (RPC URL
	// http://localhost:<port>); 0 means 8545.
	AnvilPort int `json:"anvilPort,omitempty"`
	// ChainID of the local chain; 0 means 1337.
	ChainID int64 `json:"chainId,omitempty"`
}

// FixtureOptions configure the server.
type FixtureOptions struct {
	// Port to listen on; 0 means 12345, or a free port when another
	// process holds 12345 and Origin is set (that origin reads its state
	// at its own port, FixtureStatus.OriginPort).
	Port int `json:"port,omitempty"`
	// Contracts maps contract names to deployed addresses for the
	// __FIXTURE_SUBSTITUTION__CONTRACT<name> substitution.
	Contracts map[string]string `json:"contracts,omitempty"`
	// Origin is the requesting origin this state is for
	// ("chrome-extension://<id>"); empty means the default state. GET
	// /state.json answers the state of the request's Origin header, else
	// the default state, else the only state when there is one, else 404.
	Origin string `json:"origin,omitempty"`
}

// FixtureStatus describes the running server.
type FixtureStatus struct {
	URL  string `json:"url"`
	Port int    `json:"port"`
	// OriginPort, when the start had an Origin, is a loopback port serving
	// that origin's state and nothing else, whatever the request's headers
	// say. A MetaMask extension's own fetch of its state carries no Origin
	// header (its host permissions cover localhost, so Chrome sends it
	// without CORS), so the host points that session's Chrome at this port
	// instead: --host-resolver-rules="MAP localhost:<Port>
	// 127.0.0.1:<OriginPort>".
	OriginPort int `json:"originPort,omitempty"`
	// UnlockPassword opens the served state's vault: the fixture plugin
	// built the vault, so it knows; the host unlocks the wallet with it
	// after the launch. Empty when the plugin does not know one (a custom
	// state of its caller's). Never serialized: it is a secret.
	UnlockPassword string `json:"-"`
}

// StartFixtureRequest is the state to serve and where.
type StartFixtureRequest struct {
	State WalletState `json:"state"`
	FixtureOptions
}

// StartFixtureResponse describes the server that serves it.
type StartFixtureResponse struct {
	Status FixtureStatus `json:"status"`
}

// ForgetRequest names the origin whose state to drop.
type ForgetRequest struct {
	Origin string `json:"origin"`
}

// ForgetResponse is the answer of Forget.
type ForgetResponse struct{}

// StopFixtureRequest stops the server.
type StopFixtureRequest struct{}

// StopFixtureResponse is the answer of StopFixture.
type StopFixtureResponse struct{}

// DefaultStateRequest parameterizes the default state.
type DefaultStateRequest struct {
	StateOptions
}

// DefaultStateResponse is the default state.
type DefaultStateResponse struct {
	State WalletState `json:"state"`
}

// OnboardingStateRequest parameterizes the onboarding state.
type OnboardingStateRequest struct {
	StateOptions
}

// OnboardingStateResponse is the onboarding state.
type OnboardingStateResponse struct {
	State WalletState `json:"state"`
}

// ResolvePresetRequest names a preset and parameterizes it.
type ResolvePresetRequest struct {
	Name string `json:"name"`
	StateOptions
}

// ResolvePresetResponse is the preset's state.
type ResolvePresetResponse struct {
	State WalletState `json:"state"`
}
