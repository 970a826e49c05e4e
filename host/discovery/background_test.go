package discovery

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/sdk"
)

// fakeRuntime stands in for an extension page's chrome.runtime: a
// sendMessage whose promise settles after msg.delay ms (never with
// msg.never), and a connect
// whose port answers each JSON-RPC request on MetaMask's multiplexed
// shape ({name, data: {id, method}}) after data.params.delay ms, and
// nothing else.
const fakeRuntime = `globalThis.chrome = { runtime: {
  sendMessage: (m) => new Promise((r) => { if (!m.never) setTimeout(() => r({ ok: true }), m.delay); }),
  connect: () => {
    const ls = [];
    return {
      postMessage: (m) => {
        if (m.data.id === undefined) return;
        setTimeout(() => ls.forEach((l) => l({ name: m.name, data: { id: m.data.id, jsonrpc: '2.0', result: true } })), m.data.params.delay);
      },
      onMessage: { addListener: (l) => ls.push(l) },
      onDisconnect: { addListener: () => {} },
    };
  },
} };`

// openTracked opens body in a page whose chrome.runtime is fakeRuntime and
// whose background requests are tracked (TrackBackground).
func openTracked(t testing.TB, body string) *rod.Page {
	t.Helper()
	p := open(t, "about:blank")
	ctx := p.Context(ctxT(t, 10*time.Second))
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: fakeRuntime}).Call(ctx); err != nil {
		t.Fatal(err)
	}
	if err := TrackBackground(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Navigate(serve("<!doctype html><html><head><title>t</title></head><body>" + body + "</body></html>")); err != nil {
		t.Fatal(err)
	}
	if err := ctx.WaitLoad(); err != nil {
		t.Fatal(err)
	}
	return p
}

var homeScreens = &Screens{
	Probe: map[string]string{"home": `[data-testid="home-landmark"]`},
	Name: func(_ context.Context, url string, els map[string]sdk.ElementProbe) string {
		if els["home"].Present {
			return "home"
		}
		return "elsewhere"
	},
}

// A click whose handler awaits a reply of the extension's background
// (sendMessage, or a JSON-RPC request on a port as MetaMask sends them)
// reports the screen the page shows once the reply came and the page
// re-rendered, even when the reply takes longer than the quiet window. A
// click that sent the background any other message settles as before.
func TestClickWaitsForItsBackgroundRequest(t *testing.T) {
	const leave = `.then(() => { location.hash = 'unlock'; document.querySelector('[data-testid=home-landmark]').remove(); })`
	for name, handler := range map[string]string{
		"sendMessage": `chrome.runtime.sendMessage({ delay: 400 })` + leave,
		"port": `(() => { const port = chrome.runtime.connect({ name: 'ui' }); ` +
			`return new Promise((r) => { port.onMessage.addListener(r); port.postMessage({ name: 'controller', data: { id: 7, jsonrpc: '2.0', method: 'setLocked', params: { delay: 400 } } }); }); })()` + leave,
		"port notification": `(() => { const port = chrome.runtime.connect({ name: 'ui' }); ` +
			`port.postMessage({ name: 'controller', data: { jsonrpc: '2.0', method: 'notify' } }); return new Promise((r) => setTimeout(r, 60)); })()` + leave,
	} {
		t.Run(name, func(t *testing.T) {
			p := openTracked(t, `<div data-testid="home-landmark">home</div><button data-testid="lock" onclick="`+strings.ReplaceAll(handler, `"`, "&quot;")+`">Lock</button>`)
			res, err := click(ctxT(t, 10*time.Second), p, nil, Target{TestID: "lock"}, ClickOptions{Screens: homeScreens})
			if err != nil {
				t.Fatal(err)
			}
			if c := res.Changes; c == nil || c.ScreenBefore != "home" || c.ScreenAfter != "elsewhere" || !strings.HasSuffix(c.URLAfter, "#unlock") {
				t.Errorf("changes %+v, want home -> elsewhere at #unlock", c)
			}
		})
	}
}

// A click on a tracked page that sends the background nothing is answered
// as measured: it does not wait for a page that keeps changing (a spinner)
// to fall quiet, so a change made long after it is not its screen after.
// A request the page sent earlier and that is never answered (one the
// wallet answers only when the user acts) does not make it wait either.
func TestClickWithoutBackgroundRequestAnswersAtOnce(t *testing.T) {
	p := openTracked(t, `<div data-testid="home-landmark">home</div><span id="spin"></span>
<script>chrome.runtime.sendMessage({ never: true });</script>
<button data-testid="spin" onclick="let n = 0; setInterval(() => { document.getElementById('spin').textContent = n++; }, 20); setTimeout(() => document.querySelector('[data-testid=home-landmark]').remove(), 1500)">Spin</button>`)
	res, err := click(ctxT(t, 10*time.Second), p, nil, Target{TestID: "spin"}, ClickOptions{Screens: homeScreens})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Changes; c == nil || c.ScreenBefore != "home" || c.ScreenAfter != "home" {
		t.Errorf("changes %+v, want home -> home", c)
	}
}
