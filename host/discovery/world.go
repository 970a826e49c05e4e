package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// worldName names mmcp's isolated world in every frame.
const worldName = "mmcp"

type worldKey struct {
	session proto.TargetSessionID
	frame   proto.PageFrameID
}

// worlds caches the isolated world's execution context per page session and
// frame. A navigation destroys the context; callers then see
// "Cannot find context" and recreate it (see evalIn).
var worlds = struct {
	sync.Mutex
	m map[worldKey]proto.RuntimeExecutionContextID
}{m: map[worldKey]proto.RuntimeExecutionContextID{}}

// maxWorlds bounds the cache; closed pages leave entries behind.
const maxWorlds = 4096

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

// world returns the execution context of mmcp's isolated world in frame,
// creating it when needed.
func world(p *rod.Page, frame proto.PageFrameID) (proto.RuntimeExecutionContextID, error) {
	k := worldKey{p.SessionID, frame}
	worlds.Lock()
	id, ok := worlds.m[k]
	worlds.Unlock()
	if ok {
		return id, nil
	}
	res, err := proto.PageCreateIsolatedWorld{FrameID: frame, WorldName: worldName}.Call(p)
	if err != nil {
		return 0, fmt.Errorf("create isolated world: %w", err)
	}
	worlds.Lock()
	if len(worlds.m) >= maxWorlds {
		clear(worlds.m)
	}
	worlds.m[k] = res.ExecutionContextID
	worlds.Unlock()
	return res.ExecutionContextID, nil
}

func forgetWorld(p *rod.Page, frame proto.PageFrameID) {
	worlds.Lock()
	delete(worlds.m, worldKey{p.SessionID, frame})
	worlds.Unlock()
}

// contextGone reports a CDP error meaning the execution context no longer
// exists (the frame navigated).
func contextGone(err error) bool {
	return errors.Is(err, cdp.ErrCtxNotFound) || errors.Is(err, cdp.ErrCtxDestroyed) ||
		(err != nil && (strings.Contains(err.Error(), "Cannot find context") ||
			strings.Contains(err.Error(), "context was destroyed")))
}

// jsError is an exception thrown by page-side code.
type jsError struct{ text string }

func (e *jsError) Error() string { return "page script: " + e.text }

// remoteObject passes a remote object (of the same world) as an argument
// by reference; a nil any passes undefined.
type remoteObject proto.RuntimeRemoteObjectID

func callArgs(args []any) []*proto.RuntimeCallArgument {
	out := make([]*proto.RuntimeCallArgument, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case remoteObject:
			out[i] = &proto.RuntimeCallArgument{ObjectID: proto.RuntimeRemoteObjectID(a)}
		case nil:
			out[i] = &proto.RuntimeCallArgument{}
		default:
			out[i] = &proto.RuntimeCallArgument{Value: gson.New(a)}
		}
	}
	return out
}

// evalIn runs fn(args...) in frame's isolated world and decodes the JSON
// string it returns into out.
func evalIn(p *rod.Page, frame proto.PageFrameID, fn string, out any, args ...any) error {
	res, err := callIn(p, frame, fn, true, args...)
	if err != nil {
		return err
	}
	return decode(res, out)
}

// callIn runs fn(args...) in frame's isolated world. It recreates the world
// once when a navigation destroyed the cached context.
func callIn(p *rod.Page, frame proto.PageFrameID, fn string, byValue bool, args ...any) (*proto.RuntimeCallFunctionOnResult, error) {
	for attempt := 0; ; attempt++ {
		id, err := world(p, frame)
		if err != nil {
			return nil, err
		}
		res, err := proto.RuntimeCallFunctionOn{
			FunctionDeclaration: fn,
			ExecutionContextID:  id,
			Arguments:           callArgs(args),
			ReturnByValue:       byValue,
			AwaitPromise:        true,
			ObjectGroup:         objectGroup,
		}.Call(p)
		if contextGone(err) && attempt == 0 {
			forgetWorld(p, frame)
			continue
		}
		return res, err
	}
}

// objectGroup holds the few remote objects mmcp creates; each is released
// right after use.
const objectGroup = "mmcp"

// evalOn runs fn(args...) with `this` bound to the remote object obj.
func evalOn(p *rod.Page, obj proto.RuntimeRemoteObjectID, fn string, out any, args ...any) error {
	res, err := proto.RuntimeCallFunctionOn{
		FunctionDeclaration: fn,
		ObjectID:            obj,
		Arguments:           callArgs(args),
		ReturnByValue:       true,
		AwaitPromise:        true,
	}.Call(p)
	if err != nil {
		return err
	}
	return decode(res, out)
}

func decode(res *proto.RuntimeCallFunctionOnResult, out any) error {
	if res.ExceptionDetails != nil {
		msg := res.ExceptionDetails.Text
		if res.ExceptionDetails.Exception != nil {
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
