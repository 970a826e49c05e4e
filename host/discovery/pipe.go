package discovery

import (
	"encoding/json"
	"sync/atomic"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
)

// Pipe sends DevTools commands on a Chrome connection without waiting for
// their answers. Chrome runs a session's commands in the order they arrive,
// and a page handles its input events in order, so a click sends its mouse
// press through the pipe and waits only for the release's answer, which
// comes once the page has handled both: one round trip instead of two.
// The pipe's answers, errors included, are dropped (rod's client skips
// answers to ids it did not send); a command that fails makes the one after
// it fail too.
type Pipe struct {
	ws  *cdp.WebSocket
	ids atomic.Int64
}

// pipeIDs is where the pipe's command ids start: far above those of rod's
// client on the same connection (it counts from 1), below Chrome's limit of
// 2^31-1.
const pipeIDs = 1 << 30

// NewPipe returns a pipe on ws, the connection a rod client reads.
func NewPipe(ws *cdp.WebSocket) *Pipe {
	p := &Pipe{ws: ws}
	p.ids.Store(pipeIDs)
	return p
}

// send writes one command for session and returns once it is written.
func (p *Pipe) send(session proto.TargetSessionID, method string, params any) error {
	msg, err := json.Marshal(struct {
		ID        int64                 `json:"id"`
		SessionID proto.TargetSessionID `json:"sessionId,omitempty"`
		Method    string                `json:"method"`
		Params    any                   `json:"params"`
	}{p.ids.Add(1), session, method, params})
	if err != nil {
		return err
	}
	return p.ws.Send(msg)
}
