package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// EvalWorker evaluates expr in the extension's running service worker (a
// session of its own, detached after), awaits a returned promise and
// decodes its JSON value into out. MetaMask's test builds keep their state
// there (stateHooks), and the worker's own globals other than those may be
// scuttled: expr must use only what the wallet leaves reachable.
func (s *Chrome) EvalWorker(ctx context.Context, expr string, out any) error {
	ids := s.liveWorkers(ctx)
	if len(ids) == 0 {
		return fmt.Errorf("the extension %s has no running service worker", s.extID)
	}
	att, err := proto.TargetAttachToTarget{TargetID: ids[0], Flatten: true}.Call(s.browser.Context(ctx))
	if err != nil {
		return fmt.Errorf("attach to the service worker: %w", err)
	}
	defer func() {
		_ = proto.TargetDetachFromTarget{SessionID: att.SessionID}.Call(s.browser.Context(context.WithoutCancel(ctx)))
	}()
	raw, err := s.browser.Call(ctx, string(att.SessionID), "Runtime.evaluate",
		proto.RuntimeEvaluate{Expression: expr, AwaitPromise: true, ReturnByValue: true})
	if err != nil {
		return fmt.Errorf("evaluate in the service worker: %w", err)
	}
	var res proto.RuntimeEvaluateResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("the service worker threw: %s", res.ExceptionDetails.Text)
	}
	if out == nil || res.Result == nil {
		return nil
	}
	return json.Unmarshal([]byte(res.Result.Value.JSON("", "")), out)
}

// consoleKept is how many console messages Chrome keeps for a new DevTools
// session to replay (V8's bound): a replay that long may have lost its
// oldest.
const consoleKept = 1000

// WorkerConsole returns the text of the console messages the extension's
// service worker logged since it started, as Chrome replays them to a new
// DevTools session, oldest first; full says the replay reached Chrome's
// bound, so the oldest may be missing.
func (s *Chrome) WorkerConsole(ctx context.Context) (lines []string, full bool, err error) {
	ids := s.liveWorkers(ctx)
	if len(ids) == 0 {
		return nil, false, fmt.Errorf("the extension %s has no running service worker", s.extID)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := s.browser.Context(ctx).Event() // before Runtime.enable: the replay comes first
	att, err := proto.TargetAttachToTarget{TargetID: ids[0], Flatten: true}.Call(s.browser.Context(ctx))
	if err != nil {
		return nil, false, fmt.Errorf("attach to the service worker: %w", err)
	}
	defer func() {
		_ = proto.TargetDetachFromTarget{SessionID: att.SessionID}.Call(s.browser.Context(context.WithoutCancel(ctx)))
	}()
	sid := string(att.SessionID)
	if _, err := s.browser.Call(ctx, sid, "Runtime.enable", nil); err != nil {
		return nil, false, fmt.Errorf("enable the service worker's runtime: %w", err)
	}
	// A message logged now comes after every replayed one.
	end := fmt.Sprintf("mmcp: end of the console replay %d", time.Now().UnixNano())
	if _, err := s.browser.Call(ctx, sid, "Runtime.evaluate", proto.RuntimeEvaluate{Expression: "console.debug(" + strconv.Quote(end) + ")"}); err != nil {
		return nil, false, fmt.Errorf("mark the end of the console replay: %w", err)
	}
	for {
		select {
		case msg, ok := <-events:
			if !ok {
				return lines, len(lines) >= consoleKept, ctx.Err()
			}
			if msg.SessionID != proto.TargetSessionID(sid) || msg.Method != "Runtime.consoleAPICalled" {
				continue
			}
			var ev proto.RuntimeConsoleAPICalled
			if !msg.Load(&ev) {
				continue
			}
			var parts []string
			for _, a := range ev.Args {
				if a.Value.Nil() {
					parts = append(parts, a.Description)
				} else if str := a.Value.Str(); str != "" || a.Type == proto.RuntimeRemoteObjectTypeString {
					parts = append(parts, str)
				} else {
					parts = append(parts, a.Value.JSON("", ""))
				}
			}
			line := strings.Join(parts, " ")
			if line == end {
				return lines, len(lines) >= consoleKept, nil
			}
			lines = append(lines, line)
		case <-ctx.Done():
			return lines, len(lines) >= consoleKept, ctx.Err()
		}
	}
}
