package tools

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/sdk"
)

// firstHeldObserver holds the first observation until release closes; the
// others answer at once. Each observation's screen names the order in
// which it was prepared.
type firstHeldObserver struct {
	started, release chan struct{}
	mu               sync.Mutex
	prepared         int
}

func (o *firstHeldObserver) SessionID(context.Context) string { return "mm-test" }
func (o *firstHeldObserver) Observe(context.Context, bool, string) func(context.Context) *observation.Observation {
	o.mu.Lock()
	o.prepared++
	n := o.prepared
	o.mu.Unlock()
	return func(context.Context) *observation.Observation {
		if n == 1 {
			close(o.started)
			<-o.release
		}
		return &observation.Observation{State: observation.State{CurrentScreen: string(rune('0' + n))}}
	}
}

// call runs one call without settling (run settles).
func call(r *Runner, tool, args string) Envelope {
	return r.Run(context.Background(), Request{Tool: tool, Args: json.RawMessage(args)}).Envelope
}

// TestReadOnlyRunsBesideTheObservation: while a click's observation reads
// the page, a read-only call runs and answers, a mutating call waits until
// the observation is done, and the records keep the call order even though
// the read-only call's observation ends first.
func TestReadOnlyRunsBesideTheObservation(t *testing.T) {
	r, _, rec, clicks := newTestRunner(t)
	obs := &firstHeldObserver{started: make(chan struct{}), release: make(chan struct{})}
	r.SetObserver(obs)
	looks := 0
	if err := r.Add(&Tool{Name: "mm_look", Observe: true, Record: true, Schema: json.RawMessage(`{"type":"object"}`),
		ReadOnly: func(func(any) error) bool { return true },
		Handler:  func(context.Context, *Call) (any, error) { looks++; return struct{}{}, nil }}); err != nil {
		t.Fatal(err)
	}
	if env := call(r, "mm_click", `{"testId":"a"}`); !env.OK {
		t.Fatalf("click: %+v", env)
	}
	<-obs.started // the click's observation is held
	looked := make(chan Envelope)
	go func() { looked <- call(r, "mm_look", `{}`) }()
	select {
	case env := <-looked:
		if !env.OK || looks != 1 {
			t.Fatalf("look: %+v, %d looks", env, looks)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the read-only call waited for the previous call's observation")
	}
	clicked := make(chan Envelope)
	go func() { clicked <- call(r, "mm_click", `{"testId":"b"}`) }()
	select {
	case env := <-clicked:
		t.Fatalf("a mutating call ran while the previous observation was held: %+v", env)
	case <-time.After(50 * time.Millisecond):
	}
	if *clicks != 1 {
		t.Fatalf("%d clicks ran, want 1 while the observation is held", *clicks)
	}
	close(obs.release)
	if env := <-clicked; !env.OK || *clicks != 2 {
		t.Fatalf("second click: %+v, %d clicks", env, *clicks)
	}
	r.Settle()
	var got []string
	for _, s := range rec.steps {
		got = append(got, s.Tool+"@"+s.Observation.State.CurrentScreen)
	}
	want := []string{"mm_click@1", "mm_look@2", "mm_click@3"}
	if len(got) != len(want) {
		t.Fatalf("records %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("records %v, want %v", got, want)
		}
	}
}

// TestCancelledWhileWaitingForTheObservation: a mutating call whose caller
// gives up while the previous observation holds the page answers
// MM_CANCELLED and never runs.
func TestCancelledWhileWaitingForTheObservation(t *testing.T) {
	r, _, rec, clicks := newTestRunner(t)
	obs := &firstHeldObserver{started: make(chan struct{}), release: make(chan struct{})}
	r.SetObserver(obs)
	if env := call(r, "mm_click", `{"testId":"a"}`); !env.OK {
		t.Fatalf("click: %+v", env)
	}
	<-obs.started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	env := r.Run(ctx, Request{Tool: "mm_click", Args: json.RawMessage(`{"testId":"b"}`)}).Envelope
	var mmErr *sdk.Error
	if env.OK || !errors.As(env.Error, &mmErr) || mmErr.Code != sdk.CodeTimeout || *clicks != 1 {
		t.Fatalf("answer %+v, %d clicks; want MM_TIMEOUT (the caller's deadline) and no second click", env, *clicks)
	}
	close(obs.release)
	r.Settle()
	if len(rec.steps) != 1 {
		t.Fatalf("%d records, want the first click's only", len(rec.steps))
	}
}

// TestRecordTakesTheStateReadAhead: a read-only call whose handler read
// its record's state beside its own work (tools.StateAhead) is recorded
// with that state, and the record reads no other state after the call
// answered (what the next mutating call would wait for); a read ahead
// that may not be kept (the page changed meanwhile) is replaced by a
// state read after the call, as without one.
func TestRecordTakesTheStateReadAhead(t *testing.T) {
	r, obs, rec, _ := newTestRunner(t)
	keep, recorded := true, false
	if err := r.Add(&Tool{Name: "mm_look", Record: true, Schema: json.RawMessage(`{"type":"object"}`),
		ReadOnly: func(func(any) error) bool { return true },
		Handler: func(ctx context.Context, c *Call) (any, error) {
			recorded = Recorded(ctx)
			return gathered{
				obs: &observation.Observation{A11y: observation.A11y{Nodes: []observation.A11yNode{{Ref: "e1", Role: "button", Name: "OK"}}}},
				ahead: func(context.Context) (observation.State, bool) {
					return observation.State{CurrentScreen: "ahead"}, keep
				},
			}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	if env := run(r, "mm_look", `{}`); !env.OK || !recorded {
		t.Fatalf("look: %+v, recorded %v", env, recorded)
	}
	keep = false
	if env := run(r, "mm_look", `{}`); !env.OK {
		t.Fatalf("look: %+v", env)
	}
	if len(rec.steps) != 2 {
		t.Fatalf("%d records, want 2", len(rec.steps))
	}
	for i, want := range []string{"ahead", "home"} {
		o := rec.steps[i].Observation
		if o.State.CurrentScreen != want || len(o.A11y.Nodes) != 1 || o.A11y.Nodes[0].Name != "OK" {
			t.Errorf("record %d: screen %q, nodes %+v; want the state %q and the call's own nodes", i, o.State.CurrentScreen, o.A11y.Nodes, want)
		}
	}
	if obs.lite != 1 || obs.full != 0 {
		t.Fatalf("%d state reads and %d full observations after the calls, want 1 (the read ahead not kept) and 0", obs.lite, obs.full)
	}
	r.SetRecorder(nil)
	if env := run(r, "mm_look", `{}`); !env.OK || recorded {
		t.Fatalf("without a recorder: %+v, recorded %v; want not recorded (no read ahead to start)", env, recorded)
	}
}
