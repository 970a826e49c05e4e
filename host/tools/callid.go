package tools

import (
	"context"
	"sync/atomic"
)

type callKey struct{}

// calls numbers the runner's calls (CallID).
var calls atomic.Uint64

// withCall marks ctx as one new call's.
func withCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, callKey{}, calls.Add(1))
}

// CallID identifies the call ctx belongs to: the contexts the runner gives
// a call's handler and its step record's observation (Observer.Observe)
// have the same one, and no other call has it. 0 outside a call.
func CallID(ctx context.Context) uint64 {
	id, _ := ctx.Value(callKey{}).(uint64)
	return id
}

// changes counts the starts and the ends of the calls of every runner
// that may change the page, the wallet or the chain: all but the
// read-only ones (Runner.ReadOnly), a plugin's tools included.
var changes atomic.Uint64

// Changes is that count. A state read made while it stayed the same saw
// no such call start or end, so a read-only call may take it for its
// record (the session's state reads).
func Changes() uint64 { return changes.Load() }
