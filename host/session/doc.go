// Package session owns the host's wallet sessions: launching one (through
// package launch and the plugins' capabilities), finding the one a call
// acts on, watching its parts (health), reading its state and observing
// it for the step records, and tearing it down.
package session
