package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// mmcp's isolated world: one execution context per page session and frame,
// where every page-side script of the host runs (this package's walks and
// actions, and package browser's probes through Eval), out of reach of the
// page's own globals, which may be scuttled (LavaMoat).

// worldName names mmcp's isolated world in DevTools.
const worldName = "mmcp"

type worldKey struct {
	session proto.TargetSessionID
	frame   proto.PageFrameID
}

// worldEntry is one cached world: its context, and whether this package's
// scripts are installed in it (see script).
type worldEntry struct {
	id    proto.RuntimeExecutionContextID
	ready bool
}

// mainFrame is the page's top frame id.
func mainFrame(p *rod.Page) (proto.PageFrameID, error) {
	if p.FrameID != "" {
		return p.FrameID, nil
	}
	tree, err := proto.PageGetFrameTree{}.Call(p)
	if err != nil {
		return "", fmt.Errorf("get frame tree: %w", err)
	}
	return tree.FrameTree.Frame.ID, nil
}

// world returns mmcp's isolated world in frame, creating it when needed
// (cached in p's browser's Cache).
func world(p *rod.Page, frame proto.PageFrameID) (worldEntry, error) {
	k := worldKey{p.SessionID, frame}
	worlds := &cacheOf(p).worlds
	worlds.Lock()
	w, ok := worlds.m[k]
	worlds.Unlock()
	if ok {
		return w, nil
	}
	// In a document made after Preinstall this is the world Chrome made
	// as the document started, the scripts in it.
	res, err := proto.PageCreateIsolatedWorld{FrameID: frame, WorldName: worldName}.Call(p)
	if err != nil {
		return worldEntry{}, fmt.Errorf("create isolated world: %w", err)
	}
	worlds.Lock()
	_, pre := worlds.preinstalled[p.SessionID]
	w = worldEntry{id: res.ExecutionContextID, ready: pre}
	if len(worlds.m) >= maxWorlds {
		clear(worlds.m)
	}
	worlds.m[k] = w
	worlds.Unlock()
	return w, nil
}

// Preinstall has every later document of p make mmcp's world as it starts,
// with this package's scripts installed (Page.addScriptToEvaluateOnNewDocument
// in worldName; world then finds that world by its name). The first call by
// name into a new document then sends and compiles no scripts, work done
// as the document started: 1.5-3 ms less on the test pages
// (BenchmarkFirstCall). A document made before it, or one
// Chrome runs no such script in, is given the scripts by its first call, as
// without it (callIn: the call by name finds none).
func Preinstall(p *rod.Page) error {
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: jsInstall, WorldName: worldName}).Call(p); err != nil {
		return err
	}
	worlds := &cacheOf(p).worlds
	worlds.Lock()
	defer worlds.Unlock()
	if len(worlds.preinstalled) >= maxWorlds {
		clear(worlds.preinstalled)
	}
	worlds.preinstalled[p.SessionID] = struct{}{}
	return nil
}

// setReady notes whether the scripts are installed in frame's world w.
func setReady(p *rod.Page, frame proto.PageFrameID, w worldEntry, ready bool) {
	k := worldKey{p.SessionID, frame}
	worlds := &cacheOf(p).worlds
	worlds.Lock()
	if cur, ok := worlds.m[k]; ok && cur.id == w.id {
		worlds.m[k] = worldEntry{id: w.id, ready: ready}
	}
	worlds.Unlock()
}

func forgetWorld(p *rod.Page, frame proto.PageFrameID) {
	worlds := &cacheOf(p).worlds
	worlds.Lock()
	delete(worlds.m, worldKey{p.SessionID, frame})
	worlds.Unlock()
}

// ForgetPage drops what p's browser's Cache keeps of p's session (its
// target closed).
func ForgetPage(p *rod.Page) {
	c := cacheOf(p)
	bindings, worlds := &c.bindings, &c.worlds
	bindings.Lock()
	delete(bindings.m, p.SessionID)
	bindings.Unlock()
	worlds.Lock()
	defer worlds.Unlock()
	delete(worlds.preinstalled, p.SessionID)
	for k := range worlds.m {
		if k.session == p.SessionID {
			delete(worlds.m, k)
		}
	}
}

// contextMissing reports a CDP error meaning the cached context no longer
// exists: the call never ran.
func contextMissing(err error) bool {
	return err != nil && (errors.Is(err, cdp.ErrCtxNotFound) || strings.Contains(err.Error(), "Cannot find context"))
}

// contextGone reports a CDP error meaning the execution context no longer
// exists or died while the call ran (the frame navigated).
func contextGone(err error) bool {
	return contextMissing(err) || errors.Is(err, cdp.ErrCtxDestroyed) ||
		(err != nil && strings.Contains(err.Error(), "context was destroyed"))
}

// ErrScript is wrapped by the error of a page-side script that threw.
var ErrScript = errors.New("page script threw")

// jsError is an exception thrown by page-side code.
type jsError struct{ text string }

func (e *jsError) Error() string { return "page script: " + e.text }

func (e *jsError) Unwrap() error { return ErrScript }

func callArgs(args []any) []*proto.RuntimeCallArgument {
	out := make([]*proto.RuntimeCallArgument, len(args))
	for i, a := range args {
		if a == nil {
			out[i] = &proto.RuntimeCallArgument{}
			continue
		}
		out[i] = &proto.RuntimeCallArgument{Value: gson.New(a)}
	}
	return out
}

// EvalOptions tunes one evaluation in the isolated world.
type EvalOptions struct {
	// Idempotent allows a retry in a fresh world when the context died
	// while the script ran (a navigation); a script that never ran is
	// always retried.
	Idempotent bool
	// Gesture marks the evaluation as a user gesture (the clipboard needs
	// it).
	Gesture bool
}

// Eval runs expr, a JavaScript expression, in p's main frame's isolated
// world, awaits the promise it may return and decodes its JSON value into
// out (when not nil). A script that throws yields an error wrapping
// ErrScript.
func Eval(ctx context.Context, p *rod.Page, expr string, o EvalOptions, out any) error {
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return err
	}
	fn := "async function() {\nconst v = await (\n" + expr + "\n);\nreturn JSON.stringify(v === undefined ? null : v);\n}"
	return evalIn(p, main, script{text: fn}, o, out)
}

// evalIn runs s(args...) in frame's isolated world and decodes the JSON
// string it returns into out.
func evalIn(p *rod.Page, frame proto.PageFrameID, s script, o EvalOptions, out any, args ...any) error {
	res, err := callIn(p, frame, s, o, args...)
	if err != nil {
		return fmt.Errorf("evaluate in isolated world: %w", err)
	}
	return decode(res, out)
}

// callIn runs s(args...) in frame's isolated world. It recreates the world
// when the cached context is gone: always when the call never ran, and
// when it died mid-run only for an idempotent call. A script of this
// package installs them all in a world it is the first to run in, and is
// called by name there afterwards.
func callIn(p *rod.Page, frame proto.PageFrameID, s script, o EvalOptions, args ...any) (*proto.RuntimeCallFunctionOnResult, error) {
	for attempt := 0; ; attempt++ {
		w, err := world(p, frame)
		if err != nil {
			return nil, err
		}
		res, err := proto.RuntimeCallFunctionOn{
			FunctionDeclaration: s.declaration(w.ready),
			ExecutionContextID:  w.id,
			Arguments:           callArgs(args),
			ReturnByValue:       true,
			AwaitPromise:        true,
			UserGesture:         o.Gesture,
			ObjectGroup:         objectGroup,
		}.Call(p)
		retry := contextMissing(err) || (o.Idempotent && contextGone(err))
		if retry && attempt < 2 && p.GetContext().Err() == nil {
			forgetWorld(p, frame)
			continue
		}
		if err == nil && s.name != "" {
			switch {
			case !w.ready:
				setReady(p, frame, w, true)
			case notInstalled(res) && attempt < 2:
				// the world lost them (it should not): install again
				setReady(p, frame, w, false)
				continue
			}
		}
		return res, err
	}
}

// objectGroup holds the few remote objects mmcp creates; each is released
// right after use.
const objectGroup = "mmcp"

func decode(res *proto.RuntimeCallFunctionOnResult, out any) error {
	if res.ExceptionDetails != nil {
		msg := res.ExceptionDetails.Text
		if res.ExceptionDetails.Exception != nil && res.ExceptionDetails.Exception.Description != "" {
			msg = res.ExceptionDetails.Exception.Description
		}
		return &jsError{text: msg}
	}
	if out == nil {
		return nil
	}
	// Page functions return JSON.stringify(...): one string decodes faster
	// than rod's generic value tree re-marshalled.
	if err := json.Unmarshal([]byte(res.Result.Value.Str()), out); err != nil {
		return fmt.Errorf("decode page result: %w", err)
	}
	return nil
}

// JSArg renders v as a JavaScript literal (JSON is valid JavaScript) for
// an Eval expression.
func JSArg(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// idem is how this package's own scripts run: reads, and checks that are
// safe to repeat.
var idem = EvalOptions{Idempotent: true}
