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
