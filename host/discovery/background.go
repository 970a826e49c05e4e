package discovery

import (
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// TrackBackground has every later document of p count the requests it
// sends to its extension's background that still await a reply
// (js/bgtrack.js; a page that is not an extension page is left alone). A
// click on a wallet page that sent none, and changed no testid, is then
// answered without waiting for the page to stay quiet (settleScreen). It
// applies from p's next document on: a page that loaded before it is
// settled as if it had no tracker.
func TrackBackground(p *rod.Page) error {
	_, err := proto.PageAddScriptToEvaluateOnNewDocument{Source: jsBgTrack}.Call(p)
	return err
}
