package wallet

import (
	"context"
	"strings"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Probe implements sdk.StateSnapshotter: every landmark, the DOM fallback
// elements, and the app-state script.
func (p *Profile) Probe(context.Context, sdk.ProbeRequest) (sdk.ProbeResponse, error) {
	els := map[string]string{}
	for _, l := range p.Landmarks {
		els[l.key()] = l.selector()
	}
	els[p.HomeLandmark] = testIDSelector(p.HomeLandmark)
	for name, sel := range map[string]string{
		"network": p.NetworkSelector, "balance": p.BalanceSelector, "account": p.AccountSelector,
		"error": p.ErrorSelector, "errorMessage": p.ErrorMessageSelector,
	} {
		if sel != "" {
			els[name] = sel
		}
	}
	return sdk.ProbeResponse{Probe: sdk.StateProbe{Elements: els, Script: p.AppStateScript}}, nil
}

// DetectScreen implements sdk.StateSnapshotter: the error page wherever it
// shows, then the route, then the pending approval a popup shows, then
// the landmarks.
func (p *Profile) DetectScreen(_ context.Context, req sdk.DetectScreenRequest) (sdk.DetectScreenResponse, error) {
	return sdk.DetectScreenResponse{Screen: p.screen(req.Page, parseAppState(req.Page.AppState))}, nil
}

func (p *Profile) screen(page sdk.PageSnapshot, app *appState) string {
	if p.ErrorSelector != "" && page.Elements["error"].Present {
		return "error"
	}
	r := browser.HashRoute(page.URL)
	homeRoute := r == "" || r == "/"
	if !homeRoute {
		for _, rt := range p.Routes {
			if !rt.matches(r) {
				continue
			}
			if rt.FromApproval {
				if s := p.approvalScreen(app, lastSegment(r)); s != "" {
					return s
				}
			}
			return rt.Screen
		}
	}
	if homeRoute && page.Role == browser.RoleNotification {
		// The popup opens on bare notification.html and routes to its
		// approval a moment later.
		if s := p.approvalScreen(app, ""); s != "" {
			return s
		}
	}
	for _, l := range p.Landmarks {
		// On an unknown route (a send or confirm screen) the header still
		// shows the home landmark: that is not the home screen.
		if !homeRoute && l.TestID == p.HomeLandmark {
			continue
		}
		if page.Elements[l.key()].Present {
			return l.Screen
		}
	}
	return "unknown"
}

// approvalScreen is the screen of the pending approval id (the first one
// when id names none), or "".
func (p *Profile) approvalScreen(app *appState, id string) string {
	if app == nil || len(app.Approvals) == 0 {
		return ""
	}
	a := app.Approvals[0]
	for _, x := range app.Approvals {
		if x.ID == id {
			a = x
		}
	}
	if s, ok := p.Approvals[a.Type]; ok {
		return s
	}
	if strings.HasPrefix(a.Type, "eth_signTypedData") {
		return p.Approvals["eth_signTypedData"]
	}
	return ""
}

func lastSegment(r string) string {
	return r[strings.LastIndexByte(r, '/')+1:]
}
