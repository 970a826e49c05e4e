package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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

// orderObserver logs when each observation starts and ends, numbered in
// the order they were prepared; started receives each start.
type orderObserver struct {
	mu       sync.Mutex
	log      []string
	prepared int
	started  chan int
}

func (o *orderObserver) note(s string) {
	o.mu.Lock()
	o.log = append(o.log, s)
	o.mu.Unlock()
}

func (o *orderObserver) SessionID(context.Context) string { return "mm-test" }
func (o *orderObserver) Observe(context.Context, bool, string) func(context.Context) *observation.Observation {
	o.mu.Lock()
	o.prepared++
	n := o.prepared
	o.mu.Unlock()
	return func(context.Context) *observation.Observation {
		name := string(rune('0' + n))
		o.note("observe " + name)
		select {
		case o.started <- n:
		default:
		}
		o.note("observed " + name)
		return &observation.Observation{State: observation.State{CurrentScreen: name}}
	}
}

// TestObservationGivesWayToTheNextCapture: a capture that follows a click
// at once (a viewport screenshot) runs before the click's observation
// reads the page, so the capture never waits for the record's walk; the
// observation runs once the capture is done, before the capture's own,
// and both records are written in full, in call order.
func TestObservationGivesWayToTheNextCapture(t *testing.T) {
	r, _, rec, _ := newTestRunner(t)
	r.grace = time.Hour // only Settle ends the wait
	obs := &orderObserver{started: make(chan int, 1)}
	r.SetObserver(obs)
	if err := r.Add(&Tool{Name: "mm_look", Observe: true, Record: true, Capture: true, Schema: json.RawMessage(`{"type":"object"}`),
		ReadOnly: func(func(any) error) bool { return true },
		Handler: func(context.Context, *Call) (any, error) {
			obs.note("look")
			select {
			case n := <-obs.started:
				obs.note("look saw observation " + string(rune('0'+n)))
			case <-time.After(200 * time.Millisecond):
			}
			obs.note("looked")
			return struct{}{}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	if env := call(r, "mm_click", `{"testId":"a"}`); !env.OK {
		t.Fatalf("click: %+v", env)
	}
	if env := call(r, "mm_look", `{}`); !env.OK {
		t.Fatalf("look: %+v", env)
	}
	r.Settle()
	obs.mu.Lock()
	got := strings.Join(obs.log, ", ")
	obs.mu.Unlock()
	// The capture ran before the click's observation started (Settle
	// hurries the capture's own, which may then run beside it).
	if !strings.HasPrefix(got, "look, looked, ") || !strings.Contains(got, "observed 1") || !strings.Contains(got, "observed 2") {
		t.Fatalf("order: %s\nwant: look, looked, then both observations", got)
	}
	var recs []string
	for _, s := range rec.steps {
		recs = append(recs, s.Tool+"@"+s.Observation.State.CurrentScreen)
	}
	if got, want := strings.Join(recs, " "), "mm_click@1 mm_look@2"; got != want {
		t.Fatalf("records %s, want %s", got, want)
	}
}

// TestObservationHurriedByTheNextCall: a call that may change the page
// does not wait out the grace in which an observation waits for the next
// call: it starts the observation at once, runs after it, and its own
// record follows.
func TestObservationHurriedByTheNextCall(t *testing.T) {
	r, _, rec, clicks := newTestRunner(t)
	r.grace = time.Hour
	obs := &orderObserver{started: make(chan int, 1)}
	r.SetObserver(obs)
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(r, "mm_click", `{"testId":"a"}`)
		call(r, "mm_click", `{"testId":"b"}`)
		r.Settle()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the second click (or Settle) waited out the observation's grace")
	}
	if *clicks != 2 || len(rec.steps) != 2 || rec.steps[1].Observation.State.CurrentScreen != "2" {
		t.Fatalf("%d clicks, records %+v", *clicks, rec.steps)
	}
}

// TestObservationRunsBesideOtherReadOnlyCalls: a read-only call that is
// not a capture (a snapshot, whose walk the record takes; a wait for the
// page to change) does not hold the previous call's observation back: it
// ends the wait for the next call, and that record shows the page as the
// click left it.
func TestObservationRunsBesideOtherReadOnlyCalls(t *testing.T) {
	r, _, _, _ := newTestRunner(t)
	r.grace = time.Hour
	obs := &orderObserver{started: make(chan int, 1)}
	r.SetObserver(obs)
	if err := r.Add(&Tool{Name: "mm_wait", Observe: true, Record: true, Schema: json.RawMessage(`{"type":"object"}`),
		ReadOnly: func(func(any) error) bool { return true },
		Handler: func(context.Context, *Call) (any, error) {
			select {
			case <-obs.started:
				return struct{}{}, nil
			case <-time.After(time.Second): // under maxGiveWay
				return nil, sdk.Errorf(sdk.CodeTimeout, "the click's observation waited for the read-only call")
			}
		}}); err != nil {
		t.Fatal(err)
	}
	call(r, "mm_click", `{"testId":"a"}`)
	if env := call(r, "mm_wait", `{}`); !env.OK {
		t.Fatalf("wait: %+v", env.Error)
	}
	r.Settle()
}

// TestCaptureEndsOnceItsAnswerIsWritten: on the stdio transport the
// observations keep giving way to a capture until its answer is written
// (the next message through the transport's LineWriter), which the
// client waits for; at the latest after the bound; on another transport
// (no LineWriter) as soon as the capture is done.
func TestCaptureEndsOnceItsAnswerIsWritten(t *testing.T) {
	r := NewRunner(nil)
	r.delivery = time.Hour
	var out strings.Builder
	w := NewLineWriter(&out)
	ended := make(chan struct{})
	r.delivered(WithNotifier(context.Background(), w), func() { close(ended) })
	select {
	case <-ended:
		t.Fatal("the capture ended before its answer was written")
	default:
	}
	if _, err := w.Write([]byte("{\"id\":1}\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	default:
		t.Fatal("the capture did not end once its answer was written")
	}
	if _, err := w.Write([]byte("{\"id\":2}\n")); err != nil { // ends nothing twice
		t.Fatal(err)
	}

	r.delivery = time.Millisecond
	bounded := make(chan struct{})
	r.delivered(WithNotifier(context.Background(), w), func() { close(bounded) })
	select {
	case <-bounded:
	case <-time.After(30 * time.Second):
		t.Fatal("with no answer written, the capture never ended")
	}

	direct := false
	r.delivered(context.Background(), func() { direct = true })
	if !direct {
		t.Fatal("without the stdio transport the capture did not end at once")
	}
}
