package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/sdk"
)

// health is what the session knows about its Chrome: whether it went away
// on its own, and the last console errors of the extension's pages and
// service worker (for launch diagnoses).
type health struct {
	gone    chan struct{} // closed when Chrome went away without Close
	closing chan struct{} // closed by Close before it tears down

	mu      sync.Mutex
	reason  string
	console []consoleLine                   // newest last, at most maxConsole
	crashed map[proto.TargetTargetID]string // pages whose renderer died, with the status
	pages   map[proto.TargetSessionID]proto.TargetTargetID
}

// consoleLine is one console error and when it was seen.
type consoleLine struct {
	at   time.Time
	text string
}

// maxConsole bounds the console errors kept; maxConsoleLen one entry.
const (
	maxConsole    = 30
	maxConsoleLen = 500
)

func newHealth() *health {
	return &health{gone: make(chan struct{}), closing: make(chan struct{}), crashed: map[proto.TargetTargetID]string{}, pages: map[proto.TargetSessionID]proto.TargetTargetID{}}
}

// Gone is closed when Chrome went away on its own (crashed, killed, its
// DevTools connection dropped), never by Close.
func (s *Chrome) Gone() <-chan struct{} { return s.health.gone }

// Alive answers nil while Chrome runs, and MM_BROWSER_CLOSED once it went
// away on its own.
func (s *Chrome) Alive() error {
	select {
	case <-s.health.gone:
		s.health.mu.Lock()
		reason := s.health.reason
		s.health.mu.Unlock()
		return sdk.Errorf(sdk.CodeBrowserClosed, "Chrome is gone (%s): this session cannot act any more; call mm_launch to start a fresh session (what is left of this one is cleaned up first)", reason).
			WithDetails(map[string]any{"part": "browser"})
	default:
	}
	if ti, ok := s.tabs.active(); ok {
		s.health.mu.Lock()
		status, crashed := s.health.crashed[ti.ID]
		s.health.mu.Unlock()
		if crashed {
			return sdk.Errorf(sdk.CodeBrowserClosed, "the active page (%s) crashed: its renderer died (%s); call mm_switch_to_tab for another tab, or mm_launch to start a fresh session", ti.URL, status).
				WithDetails(map[string]any{"part": "browser", "url": ti.URL})
		}
	}
	return nil
}

// goneProbe bounds the check Classify makes of Chrome's DevTools
// connection after a call failed.
const goneProbe = time.Second

// Classify is the code of a call's error that drove this Chrome: when
// Chrome went away under the call (killed, crashed, its DevTools
// connection dropped: the call sees a reset, an EOF or a closed socket
// before the session's event stream ends), MM_BROWSER_CLOSED with the way
// forward; otherwise err unchanged. It asks Chrome once, within goneProbe:
// a Chrome that answers leaves the call's own error standing.
func (s *Chrome) Classify(err error) error {
	if err == nil {
		return nil
	}
	if gone := s.Alive(); gone != nil {
		return gone
	}
	ctx, cancel := context.WithTimeout(context.Background(), goneProbe)
	defer cancel()
	_, perr := proto.BrowserGetVersion{}.Call(s.browser.Context(ctx))
	if perr == nil || ctx.Err() != nil {
		// Chrome answers, or is slow rather than gone.
		return err
	}
	// The connection is broken: the event stream ends right after the
	// pending calls fail, and the watcher then says why.
	select {
	case <-s.health.gone:
		return s.Alive()
	case <-s.health.closing:
		return err
	case <-ctx.Done():
	}
	return sdk.Errorf(sdk.CodeBrowserClosed, "Chrome's DevTools connection broke (%w): this session cannot act any more; call mm_launch to start a fresh session (what is left of this one is cleaned up first)", perr).
		WithDetails(map[string]any{"part": "browser"})
}

// ConsoleErrors are the last errors logged by the extension's pages and
// service worker (uncaught exceptions, console.error, Log entries).
func (s *Chrome) ConsoleErrors() []string {
	return s.ConsoleSince(time.Time{})
}

// ConsoleSince are the console errors seen at or after t, oldest first.
func (s *Chrome) ConsoleSince(t time.Time) []string {
	s.health.mu.Lock()
	defer s.health.mu.Unlock()
	out := []string{}
	for _, l := range s.health.console {
		if !l.at.Before(t) {
			out = append(out, l.text)
		}
	}
	return out
}

// watch follows Chrome's events on a subscription of its own: console
// errors are kept, and the end of the stream while the session is not
// closing means Chrome went away.
func (s *Chrome) watch(b *rod.Browser) {
	events := b.Event()
	go func() {
		for msg := range events {
			if line := consoleError(msg); line != "" {
				s.health.add(line)
			}
			if ev, doc, ok := discovery.ProviderEvent(msg); ok {
				s.requests.AddFrom(doc, ev)
			} else if doc := discovery.ProviderGone(msg); doc != "" {
				s.requests.Gone(doc)
			}
			switch msg.Method {
			case "Target.targetCrashed":
				var crash proto.TargetTargetCrashed
				if msg.Load(&crash) {
					s.health.crash(crash.TargetID, fmt.Sprintf("%s, code %d", crash.Status, crash.ErrorCode))
					s.log.Warn("page crashed", "target", crash.TargetID, "status", crash.Status)
				}
			case "Inspector.targetCrashed":
				s.health.mu.Lock()
				id, ok := s.health.pages[msg.SessionID]
				s.health.mu.Unlock()
				if ok {
					s.health.crash(id, "renderer gone")
					s.log.Warn("page crashed", "target", id)
				}
			}
		}
		select {
		case <-s.health.closing:
		default:
			s.health.mu.Lock()
			s.health.reason = "its DevTools connection closed: crashed, killed or closed by hand"
			s.health.mu.Unlock()
			close(s.health.gone)
			s.log.Warn("chrome went away", "pid", s.pid)
		}
	}()
}

func (h *health) add(line string) {
	if len(line) > maxConsoleLen {
		line = line[:maxConsoleLen] + "…"
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.console = append(h.console, consoleLine{at: time.Now(), text: line})
	if len(h.console) > maxConsole {
		h.console = h.console[len(h.console)-maxConsole:]
	}
}

// consoleError renders an error-level console event, or "".
func consoleError(msg *rod.Message) string {
	switch msg.Method {
	case "Runtime.exceptionThrown":
		var ev proto.RuntimeExceptionThrown
		if !msg.Load(&ev) || ev.ExceptionDetails == nil {
			return ""
		}
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text = d.Exception.Description
		}
		return "uncaught: " + firstLine(text) + at(d.URL)
	case "Runtime.consoleAPICalled":
		var ev proto.RuntimeConsoleAPICalled
		if !msg.Load(&ev) || ev.Type != proto.RuntimeConsoleAPICalledTypeError {
			return ""
		}
		var parts []string
		for _, a := range ev.Args {
			switch {
			case a.Description != "":
				parts = append(parts, firstLine(a.Description))
			case !a.Value.Nil():
				parts = append(parts, strings.Trim(a.Value.String(), `"`))
			}
		}
		return "console.error: " + strings.Join(parts, " ")
	case "Log.entryAdded":
		var ev proto.LogEntryAdded
		if !msg.Load(&ev) || ev.Entry == nil || ev.Entry.Level != proto.LogLogEntryLevelError {
			return ""
		}
		return "log: " + firstLine(ev.Entry.Text) + at(ev.Entry.URL)
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func at(url string) string {
	if url == "" {
		return ""
	}
	return " (" + url + ")"
}

// listen turns on the console, log and crash events of an attached page.
func (s *Chrome) listen(ctx context.Context, p *rod.Page) {
	s.health.mu.Lock()
	s.health.pages[p.SessionID] = p.TargetID
	s.health.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_ = proto.RuntimeEnable{}.Call(p.Context(ctx))
	_ = proto.LogEnable{}.Call(p.Context(ctx))
	_ = proto.InspectorEnable{}.Call(p.Context(ctx))
}

// crashed records that a page's renderer died.
func (h *health) crash(id proto.TargetTargetID, status string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.crashed[id] = status
}

// listenTo attaches to the given service workers for their console errors.
func (s *Chrome) listenTo(ctx context.Context, workers []proto.TargetTargetID) {
	for _, id := range workers {
		res, err := proto.TargetAttachToTarget{TargetID: id, Flatten: true}.Call(s.browser.Context(ctx))
		if err != nil {
			s.log.Debug("attach to service worker", "error", err)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var wg sync.WaitGroup
		for _, method := range []string{"Runtime.enable", "Log.enable"} {
			wg.Go(func() { _, _ = s.browser.Call(cctx, string(res.SessionID), method, nil) })
		}
		wg.Wait()
		cancel()
	}
}

// workersOf lists the service worker targets of extension extID.
func (t *tracker) workersOf(extID string) []proto.TargetTargetID {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []proto.TargetTargetID
	for id, u := range t.workers {
		if extID != "" && extensionIDFromURL(u) == extID {
			ids = append(ids, id)
		}
	}
	return ids
}

// Diagnosis is what a failed launch reports about the browser.
type Diagnosis struct {
	LastScreen    string   `json:"lastScreen"`
	LastURL       string   `json:"lastUrl"`
	ConsoleErrors []string `json:"consoleErrors"`
	Screenshot    string   `json:"screenshot,omitempty"`
}

// DiagnoseLimit bounds a diagnosis.
const DiagnoseLimit = 5 * time.Second

// Diagnose reads the active page's URL, the console errors and a
// screenshot (saved as <name>.png under the artifacts' screenshots),
// within DiagnoseLimit. The wallet's screen (LastScreen) is host/wallet's
// to add.
func (s *Chrome) Diagnose(ctx context.Context, name string) Diagnosis {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DiagnoseLimit)
	defer cancel()
	d := Diagnosis{ConsoleErrors: s.ConsoleErrors()}
	if ti, ok := s.tabs.active(); ok {
		d.LastURL = ti.URL
	}
	if shot, err := s.Screenshot(ctx, ScreenshotOptions{Name: name}); err == nil {
		d.Screenshot = shot.Path
	} else {
		s.log.Debug("diagnosis screenshot", "error", err)
	}
	return d
}

// String is a one-line summary.
func (d Diagnosis) String() string {
	return fmt.Sprintf("last screen %q at %s, %d console errors", d.LastScreen, d.LastURL, len(d.ConsoleErrors))
}
