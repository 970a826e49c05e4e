package client_test

import (
	"context"
	"fmt"
	"os"

	"github.com/mmcp-dev/mmcp/client"
)

// Connect to the mmcp host over stdio, launch a session, call a tool and
// clean up. The call log (two JSONL lines a call) goes to stderr.
func Example() {
	ctx := context.Background()
	h, err := client.Connect(ctx, client.Options{
		Command: client.Command{Path: "mmcp", Args: []string{"serve"}},
		Adapter: client.MMCPAdapter{LaunchArgs: map[string]any{"stateMode": "default"}},
		Log:     client.LoggerOptions{Writer: os.Stderr, Sidecars: true},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer h.Close(ctx)

	env, err := h.CallEnvelope(ctx, "mm_describe_screen", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // a *sdk.Error for a domain failure
		return
	}
	var screen struct{ CurrentScreen string }
	_ = env.Decode(&screen)
}

// Replay a call log (or a stored sequence) on a fresh handle.
func ExampleRunSequence() {
	ctx := context.Background()
	h, err := client.Connect(ctx, client.Options{Command: client.Command{Path: "mmcp", Args: []string{"serve"}}})
	if err != nil {
		return
	}
	defer h.Close(ctx)
	f, err := os.Open("calls.jsonl")
	if err != nil {
		return
	}
	defer f.Close()
	res, err := client.RunSequence(ctx, h, f, client.SequenceOptions{KeepGoing: true})
	fmt.Fprintln(os.Stderr, res.OK, res.Failed, err)
}
