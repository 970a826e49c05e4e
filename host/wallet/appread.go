package wallet

import (
	"context"
	"encoding/json"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/browser"
)

// AppRead is the app state of one wallet page (the state probe's
// main-world script, see readPage) read ahead of the state read that
// takes it (StateWith): a navigation to a wallet screen starts it once
// the document has loaded, beside the wait for the app to render, so the
// navigation's step record does not then wait for the wallet's background
// (the test wallet's app state is a trip to its service worker).
type AppRead struct {
	page *rod.Page
	done chan struct{} // closed once origin and value are set

	origin float64         // the document's performance.timeOrigin
	value  json.RawMessage // nil when the script answered nothing
}

// appReadResult is what StartAppRead's wrapper of the probe's script
// returns: the document's time origin and the script's answer.
type appReadResult struct {
	Origin float64         `json:"origin"`
	App    json.RawMessage `json:"app"`
}

// StartAppRead starts reading page's app state, nil when page is not a
// wallet page or the state provider reads no app state. The read outlives
// ctx's cancellation (the call that starts it answers first), bounded by
// appStateTimeout. It may run before the app has rendered: the probe's
// script answers nothing until the app can tell its state (MetaMask
// installs window.stateHooks once its store holds the background's
// state; the test wallet asks its service worker), and a read that
// answered nothing is never taken.
func (s *Wallet) StartAppRead(ctx context.Context, page *rod.Page) *AppRead {
	ti, _ := s.Tab(page.TargetID)
	_, probe := s.stateProvider(ctx)
	if probe.Script == "" || !browser.WalletRole(ti.Role) {
		return nil
	}
	r := &AppRead{page: page, done: make(chan struct{})}
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer close(r.done)
		raw := s.mainWorldValue(ctx, page, "(async () => ({ origin: performance.timeOrigin, app: await ("+probe.Script+") }))()")
		var res appReadResult
		if raw == nil || json.Unmarshal(raw, &res) != nil || len(res.App) == 0 || string(res.App) == "null" {
			return
		}
		r.origin, r.value = res.Origin, res.App
	}()
	return r
}

// take is r's app state for a state read of r's page whose probe found
// the document with origin: nil when r is of another document, or
// answered nothing (the caller reads the app state itself then).
func (r *AppRead) take(ctx context.Context, origin float64) json.RawMessage {
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil
	}
	if r.value == nil || r.origin != origin {
		return nil
	}
	return r.value
}
