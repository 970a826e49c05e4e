package knowledge

// SessionMeta is <sessionId>/session.json: the tags
// and launch context that let queries pick relevant sessions without reading
// their steps.
type SessionMeta struct {
	// SchemaVersion is always 1; WriteSession fills it.
	SchemaVersion int `json:"schemaVersion"`
	// SessionID is the session's id and directory name.
	SessionID string `json:"sessionId"`
	// CreatedAt is RFC 3339; WriteSession fills it when empty.
	CreatedAt string `json:"createdAt"`
	// Goal is the agent's task summary.
	Goal string `json:"goal,omitempty"`
	// FlowTags are the controlled vocabulary tags (send, swap, connect,
	// sign, onboarding, settings, tx-confirmation).
	FlowTags []string `json:"flowTags"`
	// Tags are free-form tags.
	Tags []string `json:"tags"`
	// Git is the workspace's git state at launch.
	Git *GitInfo `json:"git,omitempty"`
	// Build is the extension build that was launched.
	Build *BuildInfo `json:"build,omitempty"`
	// Launch describes how the session was started.
	Launch LaunchInfo `json:"launch"`
}

// LaunchInfo is the launch block of session.json.
type LaunchInfo struct {
	// StateMode is "default", "onboarding" or "custom".
	StateMode string `json:"stateMode"`
	// FixturePreset names the fixture preset; null when none.
	FixturePreset *string `json:"fixturePreset"`
	// ExtensionPath is the unpacked extension directory.
	ExtensionPath string `json:"extensionPath,omitempty"`
	// Ports are the local ports the session uses.
	Ports *Ports `json:"ports,omitempty"`
	// FromCheckpoint is the checkpoint a fork started from (mm_launch
	// fromCheckpoint); nil for a launch of its own.
	FromCheckpoint *CheckpointRef `json:"fromCheckpoint,omitempty"`
}

// CheckpointRef names a checkpoint in session.json: a fork's origin.
type CheckpointRef struct {
	// Name is the checkpoint's name; SessionID the session that saved
	// it, SavedAt when (RFC 3339).
	Name      string `json:"name"`
	SessionID string `json:"sessionId"`
	SavedAt   string `json:"savedAt"`
	// BuildID is the build it was saved on; BlockNumber its chain's block.
	BuildID     string `json:"buildId,omitempty"`
	BlockNumber uint64 `json:"blockNumber,omitempty"`
	// From is where it was read: its folder, or a checkpoint file.
	From string `json:"from"`
}

// Ports is the ports block of session.json.
type Ports struct {
	// Anvil is the chain's JSON-RPC port.
	Anvil int `json:"anvil,omitempty"`
	// FixtureServer is the fixture server's port.
	FixtureServer int `json:"fixtureServer,omitempty"`
}
