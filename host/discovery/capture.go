package discovery

import (
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

//go:embed js/provider.js
var jsProvider string

// ProviderBinding is the binding through which a web page reports its
// dapp's EIP-1193 requests (js/provider.js), one JSON event per call.
const ProviderBinding = "__mmcpEth"

// CaptureProvider has every later document of p (its web pages; extension
// pages are left alone) report the requests its dapp makes through the
// wallet's provider, unchanged, as ProviderBinding calls in the page's
// main world (Runtime.bindingCalled events of p's session). Chrome
// delivers those only while the Runtime domain is enabled.
func CaptureProvider(p *rod.Page) error {
	if err := (proto.RuntimeAddBinding{Name: ProviderBinding}).Call(p); err != nil {
		return err
	}
	_, err := proto.PageAddScriptToEvaluateOnNewDocument{Source: jsProvider}.Call(p)
	return err
}

// ProviderEvent is the payload of a ProviderBinding call in msg and the
// document that made it ("<page session>/<execution context>", as
// ProviderGone names it), ok false for any other message.
func ProviderEvent(msg *rod.Message) (payload, doc string, ok bool) {
	var ev proto.RuntimeBindingCalled
	if !msg.Load(&ev) || ev.Name != ProviderBinding {
		return "", "", false
	}
	return ev.Payload, fmt.Sprintf("%s/%d", msg.SessionID, ev.ExecutionContextID), true
}

// ProviderGone names the documents msg says went away, as ProviderEvent
// names them: one context ("<page>/<context>"), or every document of a
// page ("<page>/": its contexts cleared by a navigation, or the page
// detached, closed); "" for any other message.
func ProviderGone(msg *rod.Message) string {
	switch msg.Method {
	case "Runtime.executionContextDestroyed":
		var ev proto.RuntimeExecutionContextDestroyed
		if msg.Load(&ev) && ev.ExecutionContextID != 0 {
			return fmt.Sprintf("%s/%d", msg.SessionID, ev.ExecutionContextID)
		}
	case "Runtime.executionContextsCleared":
		if msg.SessionID != "" {
			return string(msg.SessionID) + "/"
		}
	case "Target.detachedFromTarget":
		var ev proto.TargetDetachedFromTarget
		if msg.Load(&ev) && ev.SessionID != "" {
			return string(ev.SessionID) + "/"
		}
	}
	return ""
}

// jsAnswered waits for the reads of the page's dapp (js/provider.js): the
// argument is the bound in ms.
const jsAnswered = `(ms) => { const c = globalThis[Symbol.for('mmcp.provider.capture')]; return c && typeof c.answered === 'function' ? c.answered(ms) : true; }`

// DappAnswered waits until the dapp in p's page has the answers of its
// reads in flight (the requests the wallet answers without its user,
// counted by js/provider.js in the page's main world), and the handlers
// of those answers ran, at most bound. It is true at once on a page that
// made none, or that CaptureProvider does not follow; false when bound
// passed first.
func DappAnswered(p *rod.Page, bound time.Duration) (bool, error) {
	res, err := proto.RuntimeEvaluate{
		Expression:    "(" + jsAnswered + ")(" + strconv.FormatInt(bound.Milliseconds(), 10) + ")",
		AwaitPromise:  true,
		ReturnByValue: true,
	}.Call(p)
	if err != nil {
		return false, err
	}
	if res.ExceptionDetails != nil {
		return false, fmt.Errorf("wait for the dapp's answers: %s", res.ExceptionDetails.Text)
	}
	return res.Result.Value.Bool(), nil
}
