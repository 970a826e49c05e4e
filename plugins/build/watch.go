package build

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// maxOutput bounds the output lines kept for one rebuild's error text.
const maxOutput = 40

// StartWatch implements sdk.Watcher: it starts the watch command in a
// supervised process group (it dies with the plugin), or reports the one
// that runs. A watcher that exited is started again.
func (p *Plugin) StartWatch(context.Context) (sdk.WatchStatus, error) {
	p.mu.Lock()
	w := p.watch
	p.mu.Unlock()
	if w != nil && w.status().State != sdk.WatchExited {
		return w.status(), nil
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
		return sdk.WatchStatus{State: sdk.WatchStopped}, sdk.Errorf(sdk.CodeBuildFailed, "start `%s`: %v", set.WatchCommand, err)
	}
	p.watch = nw
	return nw.status(), nil
}

// WaitReady implements sdk.Watcher.
func (p *Plugin) WaitReady(ctx context.Context, timeoutMs int64, ev sdk.Events) (sdk.Rebuild, error) {
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

// StopWatch implements sdk.Watcher.
func (p *Plugin) StopWatch(context.Context) (sdk.WatchStatus, error) {
	p.mu.Lock()
	w := p.watch
	p.watch = nil
	p.mu.Unlock()
	if w == nil {
		return sdk.WatchStatus{State: sdk.WatchStopped}, nil
	}
	w.stop()
	return w.status(), nil
}

// outcome is one finished rebuild: good (err empty) or failed.
type outcome struct {
	rebuild sdk.Rebuild
	err     string
}

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
	patternSeen  bool // a ready line was seen once: trust the output from now on
	output       []string
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

// read takes the watcher's output line by line.
func (w *watch) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		w.log.Debug("watch output", "line", line)
		w.mu.Lock()
		w.tail.Add(line)
		now := time.Now()
		isReady, isError := w.ready.MatchString(line), w.fail.MatchString(line)
		if isReady || isError {
			w.begin(now)
		}
		if w.building {
			w.activity = now
			if len(w.output) < maxOutput {
				w.output = append(w.output, line)
			}
			w.sawReady = w.sawReady || isReady
			w.sawError = w.sawError || isError
			w.patternSeen = w.patternSeen || isReady
		}
		w.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r)
}

// begin marks a rebuild under way (w.mu held).
func (w *watch) begin(now time.Time) {
	if !w.building {
		w.building, w.begun = true, now
		w.sawReady, w.sawError, w.output = false, false, nil
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
		case <-t.C:
		}
		fp := fingerprint(w.dir)
		w.mu.Lock()
		now := time.Now()
		if fp != w.fingerprint {
			w.fingerprint = fp
			w.begin(now)
			w.activity, w.dirChangedAt = now, now
		}
		w.check(now)
		w.mu.Unlock()
	}
}

// check ends the rebuild under way when its end is seen (w.mu held).
func (w *watch) check(now time.Time) {
	if !w.building {
		return
	}
	quietFor := now.Sub(w.activity)
	switch {
	case w.sawError && quietFor >= w.settle:
		w.finish(now, "pattern", strings.Join(w.output, "\n"))
	case w.sawReady && quietFor >= w.settle:
		w.finish(now, "pattern", w.manifestError())
	case !w.patternSeen && !w.dirChangedAt.IsZero() && !w.dirChangedAt.Before(w.begun) && now.Sub(w.dirChangedAt) >= w.quiet:
		w.finish(now, "quiet", w.manifestError())
	}
}

// manifestError is the error text of a build without manifest.json.
func (w *watch) manifestError() string {
	if _, err := os.Stat(filepath.Join(w.dir, "manifest.json")); err != nil {
		return fmt.Sprintf("the watch build finished but %s has no manifest.json", w.dir)
	}
	return ""
}

// finish records the rebuild under way (w.mu held).
func (w *watch) finish(now time.Time, by, errText string) {
	w.seq++
	o := &outcome{err: errText, rebuild: sdk.Rebuild{Seq: w.seq, DurationMs: now.Sub(w.begun).Milliseconds(),
		FinishedAt: now.UTC().Format(time.RFC3339Nano), By: by}}
	if errText == "" {
		if id, err := sdk.BuildID(w.dir); err == nil {
			o.rebuild.BuildID = id
		}
		r := o.rebuild
		w.lastGood = &r
	}
	w.last = o
	w.building, w.sawReady, w.sawError, w.output = false, false, false, nil
	w.log.Info("watch rebuild finished", "seq", w.seq, "by", by, "ms", o.rebuild.DurationMs, "failed", errText != "")
	w.notify()
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

// stop kills the process group and waits until it is reaped.
func (w *watch) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
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
		changed, building := w.changed, w.building
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
			}
			ev.Progress(time.Since(start).Seconds(), d.Seconds(), msg)
		case <-deadline.C:
			return sdk.Rebuild{}, sdk.Errorf(sdk.CodeTimeout, "no rebuild finished within %d ms (state %s): change a source file, or raise timeoutMs", d.Milliseconds(), w.status().State)
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
