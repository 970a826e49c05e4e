package builtin

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// sessionTools are the session lifecycle, state, navigation, tabs,
// screenshots and clipboard.
func (g *reg) sessionTools() {
	add(g, "launch", tools.Tool{
		Description: "Launch Chrome with the extension against a local chain and fixture server; the first tool of a session. stateMode default = unlocked wallet with 25 ETH. fromCheckpoint starts a fork of a saved checkpoint instead: its own Chrome and chain, with the checkpoint's chain, wallet state, mocks, contracts and tabs.",
		Timeout:     20 * time.Minute, Record: true, NoBatch: true, Exclusive: true,
	}, func(ctx context.Context, c *tools.Call, in launch.Input) (any, error) {
		res, err := g.Sessions.Launch(ctx, in, c.Progress)
		if res == nil {
			return nil, err
		}
		return session.LaunchAnswer(res), err
	})
	add(g, "cleanup", tools.Tool{
		Description: "Stop the browser and every service of the session (chain, fixture server). Always call when done.",
		NoBatch:     true, Record: true,
	}, func(ctx context.Context, _ *tools.Call, in struct{ SessionID string }) (any, error) {
		return g.Sessions.Cleanup(ctx, in.SessionID), nil
	})
	add(g, "get_context", tools.Tool{
		Description: "Environment mode (e2e or prod) of this client's next launch, its session, the capabilities a launch in that mode uses, and whether mm_set_context can switch now.",
		NoSession:   true,
	}, func(ctx context.Context, _ *tools.Call, _ struct{}) (any, error) {
		return g.Sessions.ContextInfo(ctx), nil
	})
	add(g, "set_context", tools.Tool{
		Description: "Switch the environment mode for this client's next launch: e2e (local chain, fixture server, contracts, mocks, default password) or prod (a production-like run of the extension with none of those). Refused while a session runs: mm_cleanup first.",
		Record:      true, NoBatch: true,
	}, func(ctx context.Context, _ *tools.Call, in struct{ Context string }) (any, error) {
		return g.Sessions.SetContext(ctx, in.Context)
	})
	add(g, "get_state", tools.Tool{
		Description: "Current extension state (screen, unlocked, account, network, chain id, balance) and the tracked tabs.",
		Label:       knowledge.LabelDiscovery, Observe: true, Record: true,
	}, func(ctx context.Context, _ *tools.Call, _ struct{}) (any, error) {
		return g.Sessions.GetState(ctx)
	})
	add(g, "navigate", tools.Tool{
		Description: "Navigate to a screen: home, settings, notification, or url (loads the URL in the session's dapp tab, the one the last url navigation used, or a new tab when there is none or newTab is true; the tab becomes active; the session's oldest tabs close beyond --max-tabs).",
		Label:       knowledge.LabelNavigation, Observe: true, Record: true,
	}, func(ctx context.Context, _ *tools.Call, in navigateInput) (any, error) {
		return g.Sessions.Navigate(ctx, in.Screen, in.URL, in.NewTab)
	})
	add(g, "wait_for_notification", tools.Tool{
		Description: "Wait for the extension's notification popup (after a dapp request) and make it the active page.",
		Label:       knowledge.LabelNavigation, Observe: true, Record: true, Timeout: 70 * time.Second,
	}, func(ctx context.Context, _ *tools.Call, in struct {
		TimeoutMs int `json:"timeoutMs"`
	}) (any, error) {
		return g.Sessions.WaitForNotification(ctx, time.Duration(in.TimeoutMs)*time.Millisecond)
	})
	add(g, "switch_to_tab", tools.Tool{
		Description: "Make another tracked tab active, by role (extension, notification, dapp, other) or URL prefix.",
		Label:       knowledge.LabelNavigation, Record: true,
	}, func(ctx context.Context, _ *tools.Call, in tabArgs) (any, error) {
		return g.Sessions.SwitchTab(ctx, in.Role, in.URL)
	})
	add(g, "close_tab", tools.Tool{
		Description: "Close a tab by role (notification, dapp, other) or URL prefix. The extension home page cannot be closed.",
		Label:       knowledge.LabelNavigation, Record: true,
	}, func(ctx context.Context, _ *tools.Call, in tabArgs) (any, error) {
		return g.Sessions.CloseTab(ctx, in.Role, in.URL)
	})
	add(g, "screenshot", tools.Tool{
		Description: "Save a PNG of the active page to <artifacts>/llm-knowledge/<sessionId>/screenshots/<timestamp>-<name>.png; includeBase64 also returns it as an image.",
		Observe:     true, Record: true, Capture: true,
	}, func(ctx context.Context, _ *tools.Call, in browser.ScreenshotOptions) (any, error) {
		return g.Sessions.Screenshot(ctx, in)
	})
	add(g, "clipboard", tools.Tool{
		Description: "Read or write the browser clipboard (e.g. write an SRP, then click a paste button).",
		// The clipboard may hold a secret: the record keeps its length only.
		Record: true, HoldBack: "text",
	}, func(ctx context.Context, _ *tools.Call, in clipboardInput) (any, error) {
		text := ""
		if in.Text != nil {
			text = *in.Text
		}
		return g.Sessions.Clipboard(ctx, in.Action, text)
	})
}

// navigateInput is mm_navigate's input.
type navigateInput struct {
	Screen, URL string
	NewTab      bool
}

// Check implements tools.Checker.
func (in navigateInput) Check() error {
	if in.NewTab && in.Screen != browser.ScreenURL {
		return sdk.Errorf(sdk.CodeInvalidInput, "newTab applies to screen %q only", browser.ScreenURL).
			WithDetails(map[string]any{"field": "newTab"})
	}
	if in.Screen == browser.ScreenURL {
		return browser.CheckURL(in.URL)
	}
	return nil
}

// clipboardInput is mm_clipboard's input.
type clipboardInput struct {
	Action string
	Text   *string
}

// Check implements tools.Checker: a write needs its text.
func (in clipboardInput) Check() error {
	if in.Text == nil && in.Action == browser.ClipboardWrite {
		return sdk.Errorf(sdk.CodeInvalidInput, "clipboard write needs text: give the text to write").
			WithDetails(map[string]any{"field": "text"})
	}
	return nil
}

// tabArgs are the arguments of switch_to_tab and close_tab.
type tabArgs struct{ Role, URL string }

// Check implements tools.Checker.
func (a tabArgs) Check() error { return browser.CheckTabSelector(a.Role, a.URL) }
