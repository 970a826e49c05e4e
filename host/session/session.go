package session

import (
	"crypto/rand"
	"encoding/hex"
	"sync/atomic"
	"time"

	"github.com/mmcp-dev/mmcp/host/checkpoint"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/wallet"
)

// Session is one wallet session: a Chrome with the extension, and the
// chain, contracts and fixture state launched for it. Every access happens
// inside a tool call, under the runner's session lock, except the step
// record's observation, which may run beside a read-only call (the refs
// are kept atomically for it).
type Session struct {
	// ID names the session (mm-20260115-120000-abc123).
	ID        string
	CreatedAt time.Time

	// wallet is the session's Chrome with the wallet's model on it.
	wallet *wallet.Wallet
	// parts is what the launch started (chain, fixture, contracts, browser).
	parts *launch.Parts
	// mode is the environment mode it was launched in (launch.ModeE2E,
	// launch.ModeProd).
	mode string

	// owner is the owner (tools.Owner) whose calls act on the session.
	owner string
	// shared: other owners may name the session (mm_launch's shared).
	shared bool
	// slot numbers the session among the host's running ones (0 to
	// MaxSessions-1): slot 0 uses the plugins started with the host and
	// the extension where it is; another slot its own plugin processes
	// and its own copy of the extension.
	slot int
	// ahead: a standby session, launched before a launch took it
	// (standby.go).
	ahead bool
	// aheadFor is what a standby session was launched ahead for: "" the
	// default launch, else the checkpoint it forks.
	aheadFor string
	// chainRestarts is the chain plugin's relaunch count at launch: more
	// later means it crashed, and took the session's Anvil with it.
	chainRestarts int
	// buildID is the content hash of the build the session runs
	// (sdk.BuildID), set at launch and by every reload.
	buildID atomic.Pointer[string]
	// bg is the print of the background files the session's extension runs
	// (background.go), nil when unknown; set at launch and by every
	// reload that restarts the background.
	bg atomic.Pointer[bgPrint]
	// recordedBuild is the build id the session's step records named
	// last (buildChanged).
	recordedBuild atomic.Pointer[string]
	// refs is the ref map of the latest answer the agent saw
	// (mm_accessibility_snapshot, mm_describe_screen); a tab switch drops
	// it.
	refs atomic.Pointer[discovery.RefMap]
	// reads is the state read in flight (stateread.go).
	reads stateReads
	// cps is what the session keeps of its checkpoints (checkpoint.go).
	cps checkpoints
	// from is the checkpoint a fork started from, nil for a launch of
	// its own (fork.go).
	from *checkpoint.Saved
}

// Refs is the ref map of the latest answer the agent saw, nil for none.
func (s *Session) Refs() *discovery.RefMap { return s.refs.Load() }

// setRefs makes refs the agent's (nil drops them).
func (s *Session) setRefs(refs *discovery.RefMap) { s.refs.Store(refs) }

// BuildID is the content hash of the build the session runs, "" while
// unknown.
func (s *Session) BuildID() string {
	if p := s.buildID.Load(); p != nil {
		return *p
	}
	return ""
}

func (s *Session) setBuildID(id string) { s.buildID.Store(&id) }

// buildChanged reports whether id is a build id the session's records
// have not named yet ("" never is), and notes it: the record that
// carries it labels where the build changed.
func (s *Session) buildChanged(id string) bool {
	if id == "" {
		return false
	}
	prev := s.recordedBuild.Swap(&id)
	return prev == nil || *prev != id
}

func newID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return "mm-" + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}
