package build

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/proc"
)

// pollEvery is how often the watch looks at the output directory and at
// its finish conditions.
const pollEvery = 50 * time.Millisecond

// maxOutput bounds the output lines kept for an exit's answer.
const maxOutput = 40

// maxErrorLines and maxErrorLine bound a failed rebuild's details.output:
// the lines from its first error line on (the error, its code frame and
// stack; not all of a 100-line object dump).
const (
	maxErrorLines = 40
	maxErrorLine  = 1000
)

// errorGrace bounds how long a failed rebuild waits for the watcher's
// output to settle after its first error line.
const errorGrace = 2 * time.Second

// StartWatch implements sdk.Watcher: it starts the watch command in a
// supervised process group (it dies with the plugin), or reports the one
// that runs. A watcher that exited, or is being stopped, is started again
// once its processes are gone: never two beside each other.
func (p *Plugin) StartWatch(_ context.Context, _ sdk.StartWatchRequest) (sdk.StartWatchResponse, error) {
	st, err := p.watchStart()
	return sdk.StartWatchResponse{Status: st}, err
}

func (p *Plugin) watchStart() (sdk.WatchStatus, error) {
	p.mu.Lock()
	w := p.watch
	p.mu.Unlock()
	if w != nil {
		if st := w.status(); st.State != sdk.WatchExited && st.State != sdk.WatchStopped {
			return st, nil
		}
		<-w.done
	}
	cfg, set := p.conf.Get()
	argv, err := p.resolve(set.WatchCommand)
	if err != nil {
		return sdk.WatchStatus{State: sdk.WatchStopped}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.watch != nil && p.watch != w {
		return p.watch.status(), nil // a concurrent start won
	}
	nw, err := startWatch(p.log, cfg.Workspace, p.extPath(), argv, set)
	if err != nil {
		return sdk.WatchStatus{State: sdk.WatchStopped}, sdk.Errorf(sdk.CodeBuildFailed, "start `%s`: %w", set.WatchCommand, err)
	}
	p.watch = nw
	return nw.status(), nil
}

// WaitReady implements sdk.Watcher.
func (p *Plugin) WaitReady(ctx context.Context, req sdk.WaitReadyRequest, ev sdk.Events) (sdk.WaitReadyResponse, error) {
	r, err := p.waitReady(ctx, req.TimeoutMs, ev)
	return sdk.WaitReadyResponse{Rebuild: r}, err
}

func (p *Plugin) waitReady(ctx context.Context, timeoutMs int64, ev sdk.Events) (sdk.Rebuild, error) {
	p.mu.Lock()
	w := p.watch
	p.mu.Unlock()
	if timeoutMs <= 0 {
		_, set := p.conf.Get()
		timeoutMs = set.WaitTimeoutMs
	}
	if w == nil {
		return sdk.Rebuild{}, sdk.Errorf(sdk.CodeInvalidInput, "no watch build runs: call mm_build_watch_start first")
	}
	return w.waitReady(ctx, time.Duration(timeoutMs)*time.Millisecond, ev)
}

// StopWatch implements sdk.Watcher: it answers once the watcher's
// processes are gone.
func (p *Plugin) StopWatch(context.Context, sdk.StopWatchRequest) (sdk.StopWatchResponse, error) {
	return sdk.StopWatchResponse{Status: p.watchStop()}, nil
}

func (p *Plugin) watchStop() sdk.WatchStatus {
	p.mu.Lock()
	w := p.watch
	p.mu.Unlock()
	if w == nil {
		return sdk.WatchStatus{State: sdk.WatchStopped}
	}
	w.stop()
	p.mu.Lock()
	if p.watch == w {
		p.watch = nil
	}
	p.mu.Unlock()
	return w.status()
}

// outcome is one finished rebuild: good (err empty) or failed.
type outcome struct {
	rebuild sdk.Rebuild
	err     string
}

// The sub-build lines of a watcher's output: MetaMask's browserify
// bundles ("<label>: Bundle start: \"primary\"" ... "Bundle end:
// \"primary\"", the label may differ between the two) and gulp's tasks
// ("Starting 'clean'..." ... "Finished 'clean'").
var (
	bundleStart = regexp.MustCompile(`Bundle start: "([^"]+)"`)
	bundleEnd   = regexp.MustCompile(`Bundle end: "([^"]+)"`)
	taskStart   = regexp.MustCompile(`Starting '([^']+)'\.\.\.`)
	taskEnd     = regexp.MustCompile(`Finished '([^']+)'`)
)

// watch is one running watch command and what its output and output
// directory say about its rebuilds.
type watch struct {
	log    hclog.Logger
	cmd    *exec.Cmd
	line   string // the command line
	dir    string // the output directory
	ready  *regexp.Regexp
	fail   *regexp.Regexp
	settle time.Duration
	quiet  time.Duration
	done   chan struct{} // closed once the process is reaped
	quit   chan struct{} // closed by stop
	once   sync.Once     // closes quit

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every finished rebuild or exit
	seq      int64         // finished rebuilds
	answered int64         // the newest seq WaitReady answered
	last     *outcome      // the newest finished rebuild
	lastGood *sdk.Rebuild
	exitErr  string // set once the command ended
	stopped  bool

	// The rebuild under way.
	building     bool
	begun        time.Time
	activity     time.Time // the last output line or directory change
	dirChangedAt time.Time
	sawReady     bool
	sawError     bool
	errorAt      time.Time       // the first error line
	patternSeen  bool            // a ready line was seen once: trust the output from now on
	bundles      map[string]bool // sub-builds started and not ended
	tasks        map[string]bool // gulp tasks started and not finished
	errOutput    []string        // the output from the first error line on
	pending      string          // why the rebuild under way is not finished yet
	tail         *proc.Tail
	fingerprint  string
}

func startWatch(log hclog.Logger, workspace, dir string, argv []string, s Settings) (*watch, error) {
	w := &watch{
		log: log, line: strings.Join(argv, " "), dir: dir,
		ready:  regexp.MustCompile(s.ReadyPattern),
		fail:   regexp.MustCompile(s.ErrorPattern),
		settle: time.Duration(s.SettleMs) * time.Millisecond,
		quiet:  time.Duration(s.QuietMs) * time.Millisecond,
		done:   make(chan struct{}), quit: make(chan struct{}), changed: make(chan struct{}),
		bundles: map[string]bool{}, tasks: map[string]bool{},
		tail: proc.NewTail(maxOutput),
	}
	w.fingerprint = fingerprint(dir)
	cmd := proc.Command(argv[0], argv[1:]...)
	cmd.Dir = workspace
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w.cmd = cmd
	now := time.Now()
	w.building, w.begun, w.activity = true, now, now // the initial build
	log.Info("watch started", "cmd", w.line, "pid", cmd.Process.Pid)
	read := make(chan struct{})
	go func() { w.read(pr); close(read) }()
	go func() {
		err := cmd.Wait()
		proc.KillGroup(cmd) // stray grandchildren
		_ = pw.Close()
		<-read // the last lines belong to the exit's answer
		w.exited(err)
		close(w.done)
	}()
	go w.poll()
	return w, nil
}

// read takes the watcher's output line by line; a line of any length
// (kept up to maxLine) stops nothing.
func (w *watch) read(r io.Reader) {
	eachLine(r, func(line string) {
		w.log.Debug("watch output", "line", line)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.tail.Add(line)
		w.see(time.Now(), line)
	})
}

// see takes one output line (w.mu held).
func (w *watch) see(now time.Time, line string) {
	isReady, isError := w.ready.MatchString(line), w.fail.MatchString(line)
	started := false
	if m := bundleStart.FindStringSubmatch(line); m != nil {
		w.begin(now)
		w.bundles[m[1]], started = true, true
	}
	if m := bundleEnd.FindStringSubmatch(line); m != nil {
		delete(w.bundles, m[1])
	}
	if m := taskStart.FindStringSubmatch(line); m != nil {
		w.begin(now)
		w.tasks[m[1]], started = true, true
	}
	if m := taskEnd.FindStringSubmatch(line); m != nil {
		delete(w.tasks, m[1])
		// A gulp task's end is the build's only when no task of this
		// rebuild is still running (MetaMask's 'testDev' and its
		// 'scripts:…' watchers run as long as the watch does).
		isReady = isReady || len(w.tasks) == 0
	}
	if isReady || isError || started {
		w.begin(now)
	}
	if !w.building {
		return
	}
	w.activity = now
	w.sawReady = w.sawReady || isReady
	w.patternSeen = w.patternSeen || isReady
	if isError && !w.sawError {
		w.sawError, w.errorAt = true, now
	}
	if w.sawError && len(w.errOutput) < maxErrorLines {
		if len(line) > maxErrorLine {
			line = line[:maxErrorLine] + " …"
		}
		w.errOutput = append(w.errOutput, line)
	}
}

// begin marks a rebuild under way (w.mu held).
func (w *watch) begin(now time.Time) {
	if !w.building {
		w.building, w.begun = true, now
		w.sawReady, w.sawError, w.errOutput, w.pending = false, false, nil, ""
	}
}

// poll looks at the output directory and ends rebuilds.
func (w *watch) poll() {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-w.quit:
			return
		case <-t.C:
		}
		fp := fingerprint(w.dir)
		w.mu.Lock()
		now := time.Now()
		w.look(now, fp)
		failed, good, by := w.check(now)
		activity := w.activity
		w.mu.Unlock()
		switch {
		case failed:
			w.mu.Lock()
			w.finish(time.Now(), "pattern", strings.Join(w.errOutput, "\n"), "", nil)
			w.mu.Unlock()
		case good:
			w.finishGood(by, activity)
		}
	}
}

// look notes a change of the output directory (w.mu held).
func (w *watch) look(now time.Time, fp string) {
	if fp != w.fingerprint {
		w.fingerprint = fp
		w.begin(now)
		w.activity, w.dirChangedAt = now, now
	}
}

// finishGood ends the rebuild under way as good once its build id is
// known, unless the output or the directory changed while it was hashed
// (off w.mu: stop and status never wait for a hash; stop cancels it).
func (w *watch) finishGood(by string, activity time.Time) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-w.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	id, err := sdk.BuildID(ctx, w.dir)
	cancel()
	var warnings []string
	if err != nil {
		warnings = append(warnings, err.Error())
		w.log.Warn("watch build id", "warning", err)
	}
	fp := fingerprint(w.dir)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.look(time.Now(), fp)
	if !w.building || w.stopped || !w.activity.Equal(activity) {
		return // it changed under the hash: look again
	}
	w.finish(time.Now(), by, "", id, warnings)
}

// check says whether the rebuild under way is finished, failed or good,
// and how the end was seen; else it notes why not (w.mu held).
func (w *watch) check(now time.Time) (failed, good bool, by string) {
	if !w.building {
		return false, false, ""
	}
	quietFor := now.Sub(w.activity)
	if w.sawError && (quietFor >= w.settle || now.Sub(w.errorAt) >= errorGrace) {
		return true, false, ""
	}
	switch {
	case w.sawReady:
		by = "pattern"
	case !w.patternSeen && !w.dirChangedAt.IsZero() && !w.dirChangedAt.Before(w.begun) && now.Sub(w.dirChangedAt) >= w.quiet:
		by = "quiet"
	default:
		w.pending = "waiting for the watcher to finish"
		return false, false, ""
	}
	if quietFor < w.settle {
		w.pending = "output still changing"
		return false, false, ""
	}
	if len(w.bundles) > 0 {
		w.pending = "sub-builds still running: " + strings.Join(sortedKeys(w.bundles), ", ")
		return false, false, ""
	}
	if why := incomplete(w.dir); why != "" {
		w.pending = why
		return false, false, ""
	}
	return false, true, by
}

// finish records the rebuild under way (w.mu held).
func (w *watch) finish(now time.Time, by, errText, id string, warnings []string) {
	w.seq++
	o := &outcome{err: errText, rebuild: sdk.Rebuild{Seq: w.seq, DurationMs: now.Sub(w.begun).Milliseconds(),
		FinishedAt: now.UTC().Format(time.RFC3339Nano), By: by, BuildID: id, Warnings: warnings}}
	if errText == "" {
		r := o.rebuild
		w.lastGood = &r
	}
	w.last = o
	w.building, w.sawReady, w.sawError, w.errOutput, w.pending = false, false, false, nil, ""
	// What is still open now outlives the rebuild: watch tasks that run
	// as long as the watcher, or sub-builds a failure cut short.
	w.bundles, w.tasks = map[string]bool{}, map[string]bool{}
	w.log.Info("watch rebuild finished", "seq", w.seq, "by", by, "ms", o.rebuild.DurationMs, "failed", errText != "")
	w.notify()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (w *watch) notify() {
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *watch) exited(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		w.exitErr = "stopped"
	} else {
		w.exitErr = fmt.Sprintf("the watch command `%s` exited (%v); its last output:\n%s", w.line, err, w.tail.String())
		w.log.Warn("watch command exited", "error", err)
	}
	w.building = false
	w.notify()
}

// stop kills the watcher's processes (its group and every descendant
// that left it) and waits until the command is reaped. Safe to call
// twice.
func (w *watch) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.once.Do(func() { close(w.quit) })
	proc.KillGroup(w.cmd)
	<-w.done
}

func (w *watch) status() sdk.WatchStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := sdk.WatchStatus{Running: w.exitErr == "", Command: w.line, Pid: w.cmd.Process.Pid, ExtensionPath: w.dir,
		Rebuilds: w.seq, Last: w.lastGood}
	switch {
	case w.stopped:
		st.State = sdk.WatchStopped
	case w.exitErr != "":
		st.State, st.Error = sdk.WatchExited, w.exitErr
	case w.building:
		st.State = sdk.WatchBuilding
	case w.last != nil && w.last.err != "":
		st.State, st.Error = sdk.WatchFailed, w.last.err
	default:
		st.State = sdk.WatchReady
	}
	return st
}

// waitReady answers the newest finished rebuild not answered yet, once no
// rebuild is under way, within d; progress every second while it waits.
func (w *watch) waitReady(ctx context.Context, d time.Duration, ev sdk.Events) (sdk.Rebuild, error) {
	start := time.Now()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		w.mu.Lock()
		changed, building, pending := w.changed, w.building, w.pending
		if w.last != nil && w.last.rebuild.Seq > w.answered && !building {
			o := *w.last
			w.answered = o.rebuild.Seq
			w.mu.Unlock()
			if o.err != "" {
				return o.rebuild, sdk.Errorf(sdk.CodeBuildFailed, "the watch build failed: %s", firstLines(o.err, 5)).
					WithDetails(map[string]any{"output": o.err, "seq": o.rebuild.Seq})
			}
			return o.rebuild, nil
		}
		exitErr := w.exitErr
		w.mu.Unlock()
		if exitErr != "" {
			return sdk.Rebuild{}, sdk.Errorf(sdk.CodeBuildFailed, "%s", firstLines(exitErr, 8)).
				WithDetails(map[string]any{"output": exitErr})
		}
		select {
		case <-changed:
		case <-tick.C:
			msg := "waiting for a change"
			if building {
				msg = "rebuilding"
				if pending != "" {
					msg += ": " + pending
				}
			}
			ev.Progress(time.Since(start).Seconds(), d.Seconds(), msg)
		case <-deadline.C:
			state := string(w.status().State)
			if building && pending != "" {
				state += ": " + pending
			}
			return sdk.Rebuild{}, sdk.Errorf(sdk.CodeTimeout, "no rebuild finished within %d ms (state %s): change a source file, or raise timeoutMs", d.Milliseconds(), state)
		case <-ctx.Done():
			return sdk.Rebuild{}, sdk.Errorf(sdk.CodeCancelled, "wait for the rebuild cancelled")
		}
	}
}

// firstLines is the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// fingerprint summarizes the files of dir (names, sizes, modification
// times); "" when dir does not exist.
func fingerprint(dir string) string {
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		fmt.Fprintf(&b, "%s %d %d\n", p, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	return b.String()
}
