package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("mcp client is closed")

// InvokerOptions configures an Invoker.
type InvokerOptions struct {
	// Logger writes the JSONL call log; nil logs nothing.
	Logger *Logger
	// Adapter injects the session key and closes the session; nil means
	// the server has no sessions.
	Adapter SessionAdapter
	// SessionKey is the session the adapter injects and closes.
	SessionKey string
	// Tools is the server's registry; the adapter's HasSession is asked
	// about these tools only (a call to an unknown tool gets no injection).
	Tools []mcp.Tool
}

// CallOption changes how one Invoke runs.
type CallOption func(*callOptions)

type callOptions struct {
	parallel bool
}

// Parallel lets a call bypass the FIFO queue and overlap other calls. Use it
// only for tools the server handles concurrently.
func Parallel() CallOption {
	return func(o *callOptions) { o.parallel = true }
}

// Invoker runs tool calls on one client: serialized in FIFO order (the
// server is not assumed to be concurrency-safe), logged, with the session
// key injected where the adapter says. It is safe for concurrent use.
type Invoker struct {
	c       *mcpclient.Client
	log     *Logger
	adapter SessionAdapter
	key     string
	session map[string]bool // tool name -> adapter.HasSession

	seq atomic.Int64

	mu     sync.Mutex
	tail   chan struct{} // closed when the last queued call has finished
	closed bool

	closeOnce sync.Once
	closeErr  error

	// queued, when set (tests), runs after a serial call joined the queue.
	queued func()
}

// NewInvoker returns an Invoker for c. The invoker owns c from now on: Close
// closes it.
func NewInvoker(c *mcpclient.Client, opts InvokerOptions) *Invoker {
	iv := &Invoker{
		c:       c,
		log:     opts.Logger,
		adapter: opts.Adapter,
		key:     opts.SessionKey,
		session: map[string]bool{},
		tail:    make(chan struct{}),
	}
	close(iv.tail)
	if iv.adapter != nil {
		for _, t := range opts.Tools {
			iv.session[t.Name] = iv.adapter.HasSession(t)
		}
	}
	return iv
}

// Invoke calls the tool name with args and returns its result. A Go error
// means the call did not complete (transport failure, ctx done, ErrClosed);
// a tool's own failure is in the result (IsError, or an envelope with
// "ok": false; see ResultError). Calls wait for the calls queued before
// them unless Parallel is given.
func (iv *Invoker) Invoke(ctx context.Context, name string, args map[string]any, opts ...CallOption) (*mcp.CallToolResult, error) {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	iv.mu.Lock()
	if iv.closed {
		iv.mu.Unlock()
		return nil, ErrClosed
	}
	var prev, mine chan struct{}
	if !o.parallel {
		prev, mine = iv.tail, make(chan struct{})
		iv.tail = mine
	}
	iv.mu.Unlock()

	if !o.parallel {
		if iv.queued != nil {
			iv.queued()
		}
		select {
		case <-prev:
		case <-ctx.Done():
			// Keep the queue intact: hand our turn on once prev is done.
			go func() { <-prev; close(mine) }()
			return nil, fmt.Errorf("call %s: waiting for earlier calls: %w", name, ctx.Err())
		}
		defer close(mine)
	}
	return iv.call(ctx, name, args)
}

func (iv *Invoker) call(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	if iv.adapter != nil && iv.session[name] {
		args = iv.adapter.Inject(args, iv.key)
	}
	if args == nil {
		args = map[string]any{}
	}
	seq := iv.seq.Add(1)
	if iv.log != nil {
		iv.log.Before(seq, name, args)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	start := time.Now()
	res, err := iv.c.CallTool(ctx, req)
	if iv.log != nil {
		iv.log.After(seq, name, args, time.Since(start), res, err)
	}
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	return res, nil
}

// Close stops new calls (they get ErrClosed), waits for the queued calls
// (or ctx), closes the adapter session and then always closes the
// transport, even when the adapter fails. It returns the adapter's error if
// any, else the transport's. Close is idempotent: later calls return the
// first call's result.
func (iv *Invoker) Close(ctx context.Context) error {
	iv.closeOnce.Do(func() {
		iv.mu.Lock()
		iv.closed = true
		last := iv.tail
		iv.mu.Unlock()

		var adapterErr error
		select {
		case <-last:
		case <-ctx.Done():
			adapterErr = fmt.Errorf("close: waiting for queued calls: %w", ctx.Err())
		}
		if iv.adapter != nil && adapterErr == nil {
			if err := iv.adapter.Close(ctx, iv.c, iv.key); err != nil {
				adapterErr = fmt.Errorf("close session: %w", err)
			}
		}
		transportErr := iv.c.Close()
		switch {
		case adapterErr != nil:
			iv.closeErr = adapterErr
		case transportErr != nil:
			iv.closeErr = fmt.Errorf("close transport: %w", transportErr)
		}
	})
	return iv.closeErr
}

// Client returns the underlying MCP client.
func (iv *Invoker) Client() *mcpclient.Client { return iv.c }

// sessionArgs returns the argument names the adapter injects (found by
// injecting into an empty map).
func (iv *Invoker) sessionArgs() []string {
	if iv.adapter == nil {
		return nil
	}
	var keys []string
	for k := range iv.adapter.Inject(map[string]any{}, iv.key) {
		keys = append(keys, k)
	}
	return keys
}
