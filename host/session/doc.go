// Package session owns the host's wallet sessions: launching one (through
// package launch and the plugins' capabilities), finding the one a call
// acts on, watching its parts (health), reading its state and observing
// it for the step records, and tearing it down. Each built-in tool is one
// Manager method (interact.go, discover.go, pages.go, state.go,
// visual.go, watch.go, contracts.go, knowledge.go, build.go, ...): it
// finds the call's session and does the tool's whole work, and its typed
// result tells the runner what the step record keeps (the interfaces of
// package tools' result.go). The host's watch build belongs to the owner
// that started it (watch.go).
package session
