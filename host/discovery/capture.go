package discovery

import (
	_ "embed"

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

// ProviderEvent is the payload of a ProviderBinding call in msg, ok false
// for any other message.
func ProviderEvent(msg *rod.Message) (string, bool) {
	var ev proto.RuntimeBindingCalled
	if !msg.Load(&ev) || ev.Name != ProviderBinding {
		return "", false
	}
	return ev.Payload, true
}
