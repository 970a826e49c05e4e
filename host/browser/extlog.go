package browser

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// extLogMax is how many background errors are kept.
const extLogMax = 50

// extLogEntry is one error or warning the extension's background logged.
type extLogEntry struct {
	At   time.Time
	Text string
}

// extLog keeps the recent errors of the wallet's background (service
// worker): an uncaught exception, a rejected promise, console.error. A
// popup Chrome refused to open shows up only there.
type extLog struct {
	mu       sync.Mutex
	entries  []extLogEntry
	sessions map[proto.TargetSessionID]bool
	workers  map[proto.TargetTargetID]bool
}

func (l *extLog) add(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, extLogEntry{At: time.Now(), Text: text})
	if len(l.entries) > extLogMax {
		l.entries = l.entries[len(l.entries)-extLogMax:]
	}
}

// since returns the texts logged at or after t, oldest first.
func (l *extLog) since(t time.Time) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.entries {
		if !e.At.Before(t) {
			out = append(out, e.Text)
		}
	}
	return out
}

// ours reports whether a CDP session is one of the attached workers.
func (l *extLog) ours(id proto.TargetSessionID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sessions[id]
}

// claim marks a worker target as being attached; false when it already is.
func (l *extLog) claim(id proto.TargetTargetID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.workers == nil {
		l.workers = map[proto.TargetTargetID]bool{}
		l.sessions = map[proto.TargetSessionID]bool{}
	}
	if l.workers[id] {
		return false
	}
	l.workers[id] = true
	return true
}

func (l *extLog) addSession(id proto.TargetSessionID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sessions[id] = true
}

// watchExtension attaches to the extension's service workers (the current
// one and every restart) and records what they log as errors, until ctx
// ends.
func (s *Session) watchExtension(ctx context.Context) {
	b := s.browser.Context(ctx)
	events := b.Event()
	prefix := "chrome-extension://" + s.extID + "/"
	attach := func(info *proto.TargetTargetInfo) {
		if info.Type != proto.TargetTargetInfoTypeServiceWorker || !strings.HasPrefix(info.URL, prefix) || !s.extLog.claim(info.TargetID) {
			return
		}
		go func() {
			res, err := proto.TargetAttachToTarget{TargetID: info.TargetID, Flatten: true}.Call(b)
			if err != nil {
				s.log.Debug("cannot watch the extension's worker", "error", err)
				return
			}
			s.extLog.addSession(res.SessionID)
			for _, method := range []string{"Runtime.enable", "Log.enable"} {
				if _, err := b.Call(ctx, string(res.SessionID), method, nil); err != nil {
					s.log.Debug("watch the extension's worker", "call", method, "error", err)
				}
			}
		}()
	}
	if res, err := (proto.TargetGetTargets{}).Call(b); err == nil {
		for _, info := range res.TargetInfos {
			attach(info)
		}
	}
	go func() {
		for msg := range events {
			switch msg.Method {
			case "Target.targetCreated":
				var ev proto.TargetTargetCreated
				if msg.Load(&ev) {
					attach(ev.TargetInfo)
				}
			case "Runtime.exceptionThrown":
				var ev proto.RuntimeExceptionThrown
				if s.extLog.ours(msg.SessionID) && msg.Load(&ev) {
					s.extLog.add(exceptionText(ev.ExceptionDetails))
				}
			case "Runtime.consoleAPICalled":
				var ev proto.RuntimeConsoleAPICalled
				if s.extLog.ours(msg.SessionID) && msg.Load(&ev) && ev.Type == proto.RuntimeConsoleAPICalledTypeError {
					s.extLog.add(consoleText(ev.Args))
				}
			case "Log.entryAdded":
				var ev proto.LogEntryAdded
				if s.extLog.ours(msg.SessionID) && msg.Load(&ev) && ev.Entry.Level == proto.LogLogEntryLevelError {
					s.extLog.add(ev.Entry.Text)
				}
			}
		}
	}()
}

func exceptionText(d *proto.RuntimeExceptionDetails) string {
	if d == nil {
		return ""
	}
	if d.Exception != nil && d.Exception.Description != "" {
		return firstLine(d.Exception.Description)
	}
	return d.Text
}

func consoleText(args []*proto.RuntimeRemoteObject) string {
	var parts []string
	for _, a := range args {
		switch {
		case a.Description != "":
			parts = append(parts, firstLine(a.Description))
		case !a.Value.Nil():
			parts = append(parts, a.Value.Str())
		}
	}
	return strings.Join(parts, " ")
}

// firstLine drops a stack trace.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
