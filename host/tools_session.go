package host

import (
	"context"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/schemas"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// sessionTools are the session lifecycle, state, navigation, tabs,
// screenshots and clipboard.
func (h *Host) sessionTools() []*tools.Tool {
	return []*tools.Tool{
		{
			Name:        h.name("launch"),
			Description: "Launch Chrome with the extension against a local chain and fixture server; the first tool of a session. stateMode default = unlocked wallet with 25 ETH.",
			Schema:      schemas.Get("launch"), Timeout: 20 * time.Minute, Record: true, NoBatch: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				var in launch.Input
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				return h.launch(ctx, in, c.Progress)
			},
		},
		{
			Name:        h.name("cleanup"),
			Description: "Stop the browser and every service of the session (chain, fixture server). Always call when done.",
			Schema:      schemas.Get("cleanup"), NoBatch: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				var in struct{ SessionID string }
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				return h.cleanup(in.SessionID), nil
			},
		},
		{
			Name:        h.name("get_state"),
			Description: "Current extension state (screen, unlocked, account, network, chain id, balance) and the tracked tabs.",
			Schema:      schemas.Get("get_state"), Observe: true, Record: true,
			Handler: sessionCall(h, func(ctx context.Context, s *session, _ struct{}) (any, error) {
				st, err := h.state(ctx, s)
				if err != nil {
					return nil, err
				}
				return map[string]any{"state": st, "tabs": s.browser.Tabs(), "health": h.health(ctx, s)}, nil
			}),
		},
		{
			Name:        h.name("navigate"),
			Description: "Navigate to a screen: home, settings, notification, or url (loads the URL in the session's dapp tab, the one the last url navigation used, or a new tab when there is none or newTab is true; the tab becomes active; the session's oldest tabs close beyond --max-tabs).",
			Schema:      schemas.Get("navigate"), Observe: true, Record: true,
			Handler: sessionCall(h, func(ctx context.Context, s *session, in struct {
				Screen, URL string
				NewTab      bool
			}) (any, error) {
				if in.NewTab {
					if in.Screen != browser.ScreenURL {
						return nil, sdk.Errorf(sdk.CodeInvalidInput, "newTab applies to screen %q only", browser.ScreenURL).
							WithDetails(map[string]any{"field": "newTab"})
					}
					return s.browser.OpenTab(ctx, in.URL)
				}
				return s.browser.Navigate(ctx, in.Screen, in.URL)
			}),
		},
		{
			Name:        h.name("wait_for_notification"),
			Description: "Wait for the extension's notification popup (after a dapp request) and make it the active page.",
			Schema:      schemas.Get("wait_for_notification"), Observe: true, Record: true, Timeout: 70 * time.Second,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				in := struct {
					TimeoutMs int `json:"timeoutMs"`
				}{TimeoutMs: 15000}
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				s, err := h.active()
				if err != nil {
					return nil, err
				}
				return s.browser.WaitForNotification(ctx, time.Duration(in.TimeoutMs)*time.Millisecond)
			},
		},
		{
			Name:        h.name("switch_to_tab"),
			Description: "Make another tracked tab active, by role (extension, notification, dapp, other) or URL prefix.",
			Schema:      schemas.Get("switch_to_tab"), Record: true,
			Handler: sessionCall(h, func(ctx context.Context, s *session, in tabArgs) (any, error) {
				return s.browser.SwitchTab(ctx, in.Role, in.URL)
			}),
		},
		{
			Name:        h.name("close_tab"),
			Description: "Close a tab by role (notification, dapp, other) or URL prefix. The extension home page cannot be closed.",
			Schema:      schemas.Get("close_tab"), Record: true,
			Handler: sessionCall(h, func(ctx context.Context, s *session, in tabArgs) (any, error) {
				return s.browser.CloseTab(ctx, in.Role, in.URL)
			}),
		},
		{
			Name:        h.name("screenshot"),
			Description: "Save a PNG of the active page to <artifacts>/screenshots/<name>.png; includeBase64 also returns it as an image.",
			Schema:      schemas.Get("screenshot"), Observe: true, Record: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				in := browser.ScreenshotOptions{FullPage: true}
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				return h.screenshot(ctx, c, in)
			},
		},
		{
			Name:        h.name("clipboard"),
			Description: "Read or write the browser clipboard (e.g. write an SRP, then click a paste button).",
			// The clipboard may hold a secret: the record keeps its length only.
			Schema: schemas.Get("clipboard"), Record: true, HoldBack: "text",
			Handler: sessionCall(h, func(ctx context.Context, s *session, in struct {
				Action string
				Text   *string
			}) (any, error) {
				text := ""
				if in.Text != nil {
					text = *in.Text
				} else if in.Action == "write" {
					return nil, sdk.Errorf(sdk.CodeInvalidInput, "clipboard write needs text: give the text to write").
						WithDetails(map[string]any{"field": "text"})
				}
				return s.browser.Clipboard(ctx, in.Action, text)
			}),
		},
	}
}

// tabArgs are the arguments of switch_to_tab and close_tab.
type tabArgs struct{ Role, URL string }

// sessionCall is the handler of a tool that works on the active session:
// it decodes the arguments into In, answers MM_NO_ACTIVE_SESSION without a
// session, and runs fn.
func sessionCall[In any](h *Host, fn func(ctx context.Context, s *session, in In) (any, error)) tools.Handler {
	return func(ctx context.Context, c *tools.Call) (any, error) {
		var in In
		if err := c.Decode(&in); err != nil {
			return nil, err
		}
		s, err := h.active()
		if err != nil {
			return nil, err
		}
		return fn(ctx, s, in)
	}
}

// screenshot takes one and wires it into the record and, with base64, into
// the MCP result as an image.
func (h *Host) screenshot(ctx context.Context, c *tools.Call, in browser.ScreenshotOptions) (*browser.ScreenshotResult, error) {
	s, err := h.active()
	if err != nil {
		return nil, err
	}
	res, err := s.browser.Screenshot(ctx, in)
	if err != nil {
		return nil, err
	}
	c.Screenshot = &tools.ScreenshotRef{Path: res.Path, Width: res.Width, Height: res.Height}
	if res.Base64 != "" {
		c.Images = append(c.Images, tools.Image{MIMEType: "image/png", Base64: res.Base64})
	}
	return &res, nil
}
