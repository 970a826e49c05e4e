package flows

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mmcp-dev/mmcp/internal/freeport"
	"github.com/mmcp-dev/mmcp/sdk"
)

// The host tools a flow run calls besides its own steps.
const (
	ToolLaunch      = "mm_launch"
	ToolCleanup     = "mm_cleanup"
	ToolGetState    = "mm_get_state"
	ToolListTestIDs = "mm_list_testids"
	ToolSnapshot    = "mm_accessibility_snapshot"
	ToolGetText     = "mm_get_text"
	ToolScreenshot  = "mm_screenshot"
	ToolChainStatus = "chain_status"
	ToolConfirm     = "mm_confirm"
)

// DefaultTimeout bounds one attempt of a flow (launch to cleanup) unless
// the flow or --timeout says otherwise.
const DefaultTimeout = 3 * time.Minute

// artifactBudget bounds collecting a failed flow's artifacts.
const artifactBudget = 30 * time.Second

// Caller calls a tool in a flow's own session.
type Caller interface {
	// Call returns the result of a successful call; a failed one is an
	// *sdk.Error.
	Call(ctx context.Context, tool string, args map[string]any) (json.RawMessage, error)
}

// Session is a flow's own wallet session on the host.
type Session interface {
	Caller
	// ConsoleErrors are the console errors of the session's extension.
	ConsoleErrors(ctx context.Context) []string
}

// Statuses of a flow's result.
const (
	StatusPassed = "passed"
	StatusFailed = "failed"
	// StatusFlaky is a flow that failed, then passed on a retry.
	StatusFlaky = "flaky"
)

// Options configure a Runner.
type Options struct {
	// Parallel is how many flows run at once (at least 1).
	Parallel int
	// Retries is how many times a failed flow runs again.
	Retries int
	// Timeout bounds one attempt of a flow without its own timeoutMs.
	Timeout time.Duration
	// OutDir receives failed flows' artifacts (<OutDir>/<flow>/).
	OutDir string
	// KnowledgeDir is the knowledge store's root (step records are in
	// <KnowledgeDir>/<sessionId>).
	KnowledgeDir string
	// Session opens a session of its own for owner.
	Session func(owner string) Session
	// Progress receives one line per finished flow (nil: none).
	Progress io.Writer
	// Standby, when set, says whether a flow's launch (its launch map,
	// no ports added yet) takes one of the sessions the host keeps
	// launched ahead (--standby): such a launch names no ports (standby
	// sessions' chains run on free ports) and takes one at once while
	// another launches behind it, during this flow's steps.
	Standby func(launch map[string]any) bool
	// Describe: a failed flow's artifacts also hold mm_describe_screen's
	// answer (screen.json: the screen and earlier sessions' hints on it),
	// for a hand-off bundle.
	Describe bool
}

// Result is one flow's outcome.
type Result struct {
	Name       string `json:"name"`
	Path       string `json:"path,omitempty"`
	Status     string `json:"status"`
	Attempts   int    `json:"attempts"`
	DurationMs int64  `json:"durationMs"`
	Error      string `json:"error,omitempty"`
	ErrorCode  string `json:"errorCode,omitempty"`
	FailedStep int    `json:"failedStep,omitempty"`
	// LaunchMs and ExpectMs are the last attempt's launch and the wait for
	// its expectations (its steps' times are in Steps).
	LaunchMs  int64        `json:"launchMs"`
	ExpectMs  int64        `json:"expectMs"`
	SessionID string       `json:"sessionId,omitempty"`
	Steps     []StepResult `json:"steps,omitempty"`
	Artifacts *Artifacts   `json:"artifacts,omitempty"`
	// Checks are the visual and structure expectations' last outcomes
	// when the expectations failed.
	Checks []CheckOutcome `json:"checks,omitempty"`
	// Shard is the shard that ran the flow ("1/3"), when sharded.
	Shard string `json:"shard,omitempty"`
	// Handoff is the failed flow's hand-off bundle (--handoff), and
	// Repair what the agent's repair of it became (MergeJSON reads it
	// from the bundle).
	Handoff string  `json:"handoff,omitempty"`
	Repair  *Repair `json:"repair,omitempty"`
}

// StepResult is one step of a flow's last attempt.
type StepResult struct {
	Tool       string `json:"tool"`
	OK         bool   `json:"ok"`
	DurationMs int64  `json:"durationMs"`
	Error      string `json:"error,omitempty"`
}

// Artifacts are the files of a failed flow.
type Artifacts struct {
	Screenshot    string   `json:"screenshot,omitempty"`
	Snapshot      string   `json:"snapshot,omitempty"`
	ConsoleErrors string   `json:"consoleErrors,omitempty"`
	Console       []string `json:"console,omitempty"`
	Steps         string   `json:"steps,omitempty"`
	StepRecords   string   `json:"stepRecords,omitempty"`
	Screen        string   `json:"screen,omitempty"`
}

// Run runs the flows, at most o.Parallel at once, and returns their
// results in the flows' order.
func Run(ctx context.Context, flows []*Flow, o Options) []Result {
	out := make([]Result, len(flows))
	work := make(chan int)
	var wg sync.WaitGroup
	var progress sync.Mutex
	for range max(1, o.Parallel) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if ctx.Err() != nil {
					out[i] = notRun(flows[i], ctx.Err())
					continue
				}
				out[i] = runFlow(ctx, flows[i], o)
				if o.Progress != nil {
					progress.Lock()
					fmt.Fprintln(o.Progress, progressLine(out[i]))
					progress.Unlock()
				}
			}
		}()
	}
	for i := range flows {
		select {
		case work <- i:
			continue
		case <-ctx.Done():
		}
		// Interrupted: the flows not handed out did not run.
		for j := i; j < len(flows); j++ {
			out[j] = notRun(flows[j], ctx.Err())
		}
		break
	}
	close(work)
	wg.Wait()
	return out
}

// notRun is the result of a flow an interrupted run never started.
func notRun(f *Flow, err error) Result {
	return Result{Name: f.Name, Path: f.Path, Status: StatusFailed, Error: "not run: " + err.Error()}
}

func progressLine(r Result) string {
	line := fmt.Sprintf("%-5s %s (%.1fs", strings.ToUpper(r.Status), r.Name, float64(r.DurationMs)/1000)
	if r.Attempts > 1 {
		line += fmt.Sprintf(", %d attempts", r.Attempts)
	}
	line += ")"
	if r.Status == StatusFailed {
		line += ": " + r.Error
		if r.Artifacts != nil {
			line += "\n      artifacts: " + filepath.Dir(r.Artifacts.Steps)
		}
	}
	return line
}

// runFlow runs one flow, again on failure up to o.Retries times.
func runFlow(ctx context.Context, f *Flow, o Options) Result {
	start := time.Now()
	var r Result
	for attempt := 1; attempt <= 1+max(0, o.Retries); attempt++ {
		r = runAttempt(ctx, f, o, attempt)
		r.Attempts = attempt
		if r.Status == StatusPassed {
			if attempt > 1 {
				r.Status = StatusFlaky
			}
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	r.DurationMs = time.Since(start).Milliseconds()
	return r
}

func runAttempt(parent context.Context, f *Flow, o Options, attempt int) Result {
	r := Result{Name: f.Name, Path: f.Path, Status: StatusPassed}
	timeout := o.Timeout
	if f.TimeoutMs > 0 {
		timeout = time.Duration(f.TimeoutMs) * time.Millisecond
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	s := o.Session(fmt.Sprintf("flow:%s:%s#%d", f.Path, f.ID(), attempt))
	defer func() {
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(parent), artifactBudget)
		defer ccancel()
		_, _ = s.Call(cctx, ToolCleanup, map[string]any{})
	}()
	fail := func(step int, err error) Result {
		r.Status, r.FailedStep, r.Error = StatusFailed, step, err.Error()
		if ctx.Err() != nil && parent.Err() == nil {
			r.Error = fmt.Sprintf("timed out after %s: %s", timeout, err)
		}
		var se *sdk.Error
		if errors.As(err, &se) {
			r.ErrorCode = se.Code
		}
		if ee := (*ExpectError)(nil); errors.As(err, &ee) {
			r.Checks = keepCheckImages(filepath.Join(o.OutDir, f.ID()), ee.Checks)
		}
		r.Artifacts = collect(context.WithoutCancel(parent), s, f, o, r, attempt)
		return r
	}
	launch := map[string]any{"goal": "flow: " + f.Name}
	for k, v := range f.Launch {
		launch[k] = v
	}
	_, named := launch["ports"]
	t0 := time.Now()
	raw, err := launchOn(ctx, s, launch, !named && (o.Standby == nil || !o.Standby(launch)))
	r.LaunchMs = time.Since(t0).Milliseconds()
	if err != nil {
		return fail(0, fmt.Errorf("launch: %w", err))
	}
	var launched struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(raw, &launched)
	r.SessionID = launched.SessionID
	since, err := f.Expect.firstTx(ctx, s)
	if err != nil {
		return fail(0, fmt.Errorf("expect.transactions: the chain's block number after the launch: %w", err))
	}
	for i, st := range f.Steps {
		t0 := time.Now()
		err := runStep(ctx, s, st)
		sr := StepResult{Tool: st.ToolName(), OK: err == nil, DurationMs: time.Since(t0).Milliseconds()}
		if err != nil {
			sr.Error = err.Error()
		}
		r.Steps = append(r.Steps, sr)
		if err != nil {
			return fail(i+1, fmt.Errorf("step %d %s: %w", i+1, st.ToolName(), err))
		}
	}
	t0 = time.Now()
	err = f.Expect.verifySince(ctx, s, since)
	r.ExpectMs = time.Since(t0).Milliseconds()
	if err != nil {
		return fail(0, err)
	}
	return r
}

// runStep calls a step's tool; a role+name target is first resolved to
// the ref of that element in a fresh snapshot, waiting for it up to the
// step's timeoutMs.
func runStep(ctx context.Context, c Caller, st Step) error {
	tool, args := st.call()
	if st.Target != nil {
		wait := 15 * time.Second
		if ms, ok := args["timeoutMs"].(float64); ok {
			wait = time.Duration(ms) * time.Millisecond
		}
		ref, err := findRef(ctx, c, st.Target.Role, st.Target.Name, wait)
		if err != nil {
			return err
		}
		args["a11yRef"] = ref
	}
	_, err := c.Call(ctx, tool, args)
	return err
}

// findRef takes snapshots until one has an element of role and name.
func findRef(ctx context.Context, c Caller, role, name string, wait time.Duration) (string, error) {
	deadline := time.Now().Add(wait)
	for {
		v := &view{c: c}
		nodes, err := v.a11y(ctx)
		if err != nil {
			return "", err
		}
		for _, n := range nodes {
			if n.Role == role && n.Name == name {
				return n.Ref, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return "", sdk.Errorf(sdk.CodeTargetNotFound, "no element with role %q and name %q on the page after %s", role, name, wait)
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// collect writes a failed attempt's artifacts to <OutDir>/<flow id>/: a
// screenshot, the last accessibility snapshot, the console errors and the
// step results, and names the session's step records.
func collect(parent context.Context, s Session, f *Flow, o Options, r Result, attempt int) *Artifacts {
	ctx, cancel := context.WithTimeout(parent, artifactBudget)
	defer cancel()
	dir := filepath.Join(o.OutDir, f.ID())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	a := &Artifacts{}
	name := fmt.Sprintf("flow-%s-%d", f.ID(), attempt)
	if raw, err := s.Call(ctx, ToolScreenshot, map[string]any{"name": name}); err == nil {
		var shot struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(raw, &shot) == nil {
			a.Screenshot = shot.Path
		}
	}
	if raw, err := s.Call(ctx, ToolSnapshot, map[string]any{}); err == nil {
		a.Snapshot = writeFile(dir, "snapshot.json", raw)
	}
	if o.Describe {
		if raw, err := s.Call(ctx, ToolDescribeScreen, map[string]any{}); err == nil {
			a.Screen = writeFile(dir, "screen.json", raw)
		}
	}
	a.Console = s.ConsoleErrors(ctx)
	a.ConsoleErrors = writeFile(dir, "console-errors.txt", []byte(strings.Join(a.Console, "\n")+"\n"))
	steps, _ := json.MarshalIndent(r, "", "  ")
	a.Steps = writeFile(dir, "result.json", steps)
	if r.SessionID != "" && o.KnowledgeDir != "" {
		a.StepRecords = filepath.Join(o.KnowledgeDir, r.SessionID)
	}
	return a
}

func writeFile(dir, name string, b []byte) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return ""
	}
	return p
}

// maxIDSlug bounds the readable part of a flow's ID (with the hash and
// "flow-…-N" it stays inside mm_screenshot's 128-character name).
const maxIDSlug = 80

var (
	safeID   = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)
	hashedID = regexp.MustCompile(`-[0-9a-f]{10}$`)
	unsafeID = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
)

// ID is the flow's name as one safe file name (its artifact folder, its
// screenshot, its session's owner), distinct for distinct names: a name
// that is already a safe name (letters, digits, ".", "_", "-", not
// starting with ".") is its own ID; any other becomes a readable slug
// plus 10 hex digits of the name's SHA-256 ("a b" is a-b-…, "a/b" is
// a-b-… with another hash, ".." is flow-…), so no name reaches outside
// the folder it is joined to.
func (f *Flow) ID() string {
	n := f.Name
	if safeID.MatchString(n) && len(n) <= maxIDSlug && !hashedID.MatchString(n) {
		return n
	}
	slug := strings.Trim(unsafeID.ReplaceAllString(n, "-"), "-.")
	if len(slug) > maxIDSlug {
		slug = strings.Trim(slug[:maxIDSlug], "-.")
	}
	if slug == "" {
		slug = "flow"
	}
	sum := sha256.Sum256([]byte(n))
	return slug + "-" + hex.EncodeToString(sum[:])[:10]
}

// launchPortTries bounds the launches of a flow whose free port another
// program took meanwhile.
const launchPortTries = 3

// launchOn calls mm_launch. With pick it launches on free ports, so that
// flows of several hosts (shards on one machine) never meet on Anvil's 8545
// or the fixture's 12345 (the session's Chrome is pointed at its fixture
// port), and on new ones when another program took one meanwhile.
func launchOn(ctx context.Context, s Session, launch map[string]any, pick bool) (json.RawMessage, error) {
	for try := 1; ; try++ {
		if pick {
			ports, err := freeport.Loopback(2)
			if err != nil {
				return nil, err
			}
			launch["ports"] = map[string]any{"anvil": ports[0], "fixtureServer": ports[1]}
		}
		raw, err := s.Call(ctx, ToolLaunch, launch)
		var se *sdk.Error
		if !pick || try == launchPortTries || !errors.As(err, &se) || se.Code != sdk.CodePortInUse {
			return raw, err
		}
	}
}
