package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// A call that arrives while the same owner's Exclusive call (mm_launch)
// runs answers MM_LAUNCH_IN_PROGRESS at once, naming the launch's last
// progress message; another owner's calls and the calls after the launch
// answered run as usual.
func TestCallDuringLaunchAnswersAtOnce(t *testing.T) {
	r := NewRunner(nil)
	stuck, release := make(chan struct{}), make(chan struct{})
	obj := json.RawMessage(`{"type":"object"}`)
	if err := r.Add(&Tool{Name: "mm_launch", Exclusive: true, Schema: obj, Handler: func(_ context.Context, c *Call) (any, error) {
		c.Progress(5, 7, "launch: unlock (at most 1m0s)")
		close(stuck)
		<-release
		return map[string]any{"sessionId": "s1"}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(&Tool{Name: "mm_get_state", Schema: obj, Handler: func(context.Context, *Call) (any, error) {
		return map[string]any{"ok": true}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	alice, bob := WithOwner(context.Background(), "alice"), WithOwner(context.Background(), "bob")
	launched := make(chan Envelope)
	go func() { launched <- r.Run(alice, Request{Tool: "mm_launch"}).Envelope }()
	<-stuck

	ctx, cancel := context.WithTimeout(alice, 5*time.Second)
	defer cancel()
	env := r.Run(ctx, Request{Tool: "mm_get_state"}).Envelope
	if env.OK || env.Error.Code != sdk.CodeLaunchInProgress {
		t.Fatalf("a call during the launch answered %+v", env)
	}
	if ctx.Err() != nil {
		t.Fatal("the call waited for its deadline")
	}
	d := env.Error.Details
	if d["tool"] != "mm_launch" || d["doing"] != "launch: unlock (at most 1m0s)" || !strings.Contains(env.Error.Message, "at most 1m0s") {
		t.Fatalf("error %q %v", env.Error.Message, d)
	}
	if env := r.Run(alice, Request{Tool: "mm_launch"}).Envelope; env.OK || env.Error.Code != sdk.CodeLaunchInProgress {
		t.Fatalf("a second launch during the launch answered %+v", env)
	}
	if env := r.Run(bob, Request{Tool: "mm_get_state"}).Envelope; !env.OK {
		t.Fatalf("another owner's call answered %+v", env)
	}

	close(release)
	if env := <-launched; !env.OK {
		t.Fatalf("launch %+v", env)
	}
	if env := r.Run(alice, Request{Tool: "mm_get_state"}).Envelope; !env.OK {
		t.Fatalf("the call after the launch answered %+v", env)
	}
}
