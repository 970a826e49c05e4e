package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// worldName names mmcp's isolated world in DevTools.
const worldName = "mmcp"

// isolatedWorlds caches one isolated-world execution context per page
// target. A context dies with its document; evaluation then fails with
// "Cannot find context" and a new world is created.
type isolatedWorlds struct {
	mu   sync.Mutex
	ctxs map[proto.TargetTargetID]proto.RuntimeExecutionContextID
}

func newIsolatedWorlds() *isolatedWorlds {
	return &isolatedWorlds{ctxs: map[proto.TargetTargetID]proto.RuntimeExecutionContextID{}}
}

func (w *isolatedWorlds) get(ctx context.Context, p *rod.Page, fresh bool) (proto.RuntimeExecutionContextID, error) {
	w.mu.Lock()
	id, ok := w.ctxs[p.TargetID]
	w.mu.Unlock()
	if ok && !fresh {
		return id, nil
	}
	res, err := proto.PageCreateIsolatedWorld{FrameID: p.FrameID, WorldName: worldName}.Call(p.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("create isolated world: %w", err)
	}
	w.mu.Lock()
	w.ctxs[p.TargetID] = res.ExecutionContextID
	w.mu.Unlock()
	return res.ExecutionContextID, nil
}

func (w *isolatedWorlds) forget(id proto.TargetTargetID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.ctxs, id)
}

// errScriptException is wrapped by eval when the page code threw.
var errScriptException = errors.New("script threw")

// evalOpts tunes one evaluation.
type evalOpts struct {
	// idempotent allows a retry even when the context died mid-run.
	idempotent bool
	// gesture marks the evaluation as a user gesture (clipboard needs it).
	gesture bool
}

// eval runs expr (an expression, usually an IIFE) in p's isolated world,
// awaits a returned promise and decodes the JSON value into out (when not
// nil).
func (w *isolatedWorlds) eval(ctx context.Context, p *rod.Page, expr string, o evalOpts, out any) error {
	fresh := false
	for attempt := 0; ; attempt++ {
		cid, err := w.get(ctx, p, fresh)
		if err != nil {
			return err
		}
		res, err := proto.RuntimeEvaluate{
			Expression:    expr,
			ContextID:     cid,
			ReturnByValue: true,
			AwaitPromise:  true,
			UserGesture:   o.gesture,
		}.Call(p.Context(ctx))
		if err != nil {
			msg := err.Error()
			retry := strings.Contains(msg, "Cannot find context") ||
				(o.idempotent && strings.Contains(msg, "context was destroyed"))
			if retry && attempt < 2 && ctx.Err() == nil {
				fresh = true
				continue
			}
			return fmt.Errorf("evaluate in isolated world: %w", err)
		}
		if res.ExceptionDetails != nil {
			text := res.ExceptionDetails.Text
			if ex := res.ExceptionDetails.Exception; ex != nil && ex.Description != "" {
				text = ex.Description
			}
			return fmt.Errorf("%w: %s", errScriptException, text)
		}
		if out == nil || res.Result == nil {
			return nil
		}
		raw, err := json.Marshal(res.Result.Value)
		if err != nil {
			return fmt.Errorf("encode script result: %w", err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("decode script result: %w", err)
		}
		return nil
	}
}

// jsArg renders v as a JavaScript literal (JSON is valid JavaScript).
func jsArg(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}
