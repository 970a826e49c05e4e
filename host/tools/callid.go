package tools

import (
	"context"
	"sync/atomic"
)

type callKey struct{}

// callMark is what withCall puts in a call's context.
type callMark struct {
	id       uint64
	readOnly bool
}

// calls numbers the runner's calls (CallID).
var calls atomic.Uint64

// withCall marks ctx as one new call's, read-only or not (Runner.ReadOnly).
func withCall(ctx context.Context, readOnly bool) context.Context {
	return context.WithValue(ctx, callKey{}, callMark{id: calls.Add(1), readOnly: readOnly})
}

// CallID identifies the call ctx belongs to: the contexts the runner gives
// a call's handler and its step record's observation (Observer.Observe)
// have the same one, and no other call has it. 0 outside a call.
func CallID(ctx context.Context) uint64 {
	m, _ := ctx.Value(callKey{}).(callMark)
	return m.id
}

// CallReadOnly reports whether the call ctx belongs to changes neither the
// page nor the wallet (Runner.ReadOnly); false outside a call.
func CallReadOnly(ctx context.Context) bool {
	m, _ := ctx.Value(callKey{}).(callMark)
	return m.readOnly
}
