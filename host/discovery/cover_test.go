package discovery

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// accountMenu is MetaMask's account menu left open over the page: an
// mm-modal with its overlay and a close button.
const accountMenu = `<button data-testid="b" onclick="document.body.setAttribute('data-hit','1')">Confirm</button>
<div id="menu" class="mm-modal multichain-account-menu-popover" style="position:fixed;inset:0">
 <div class="mm-modal-overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>
 <section class="mm-modal-content" role="dialog" style="position:fixed;top:0;left:0;width:200px;height:40px;background:#fff">
  <button class="mm-button-icon" aria-label="Close" onclick="document.getElementById('menu').remove()">x</button>
 </section>
</div>`

// A click on a button a modal covers answers MM_TARGET_COVERED once the
// cover has held for CoveredFor, long before its own timeout, naming the
// modal and its close button; closing the modal with that button lets the
// same click through.
func TestClickCoveredFailsFast(t *testing.T) {
	p := openHTML(t, accountMenu)
	// Only the fast path answers MM_TARGET_COVERED: the 15 s deadline
	// would answer MM_CLICK_FAILED.
	_, err := click(ctxT(t, 15*time.Second), p, nil, Target{TestID: "b"})
	se := wantCode(t, err, sdk.CodeTargetCovered, "MetaMask's account menu", "div#menu.mm-modal.multichain-account-menu-popover", `button[aria-label=\"Close\"]`)
	if se.Details["overlay"] != "MetaMask's account menu" || se.Details["closeSelector"] == nil {
		t.Errorf("details %v", se.Details)
	}
	if attr(t, p, "body", "data-hit") != "" {
		t.Fatal("a covered button was clicked")
	}
	sel, _ := se.Details["closeSelector"].(string)
	if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{Selector: sel}); err != nil {
		t.Fatalf("the advised close control %q: %v", sel, err)
	}
	if _, err := click(ctxT(t, 5*time.Second), p, nil, Target{TestID: "b"}); err != nil {
		t.Fatal(err)
	}
	if attr(t, p, "body", "data-hit") != "1" {
		t.Error("not clicked once the modal was closed")
	}
}

// An unknown overlay is named by what it is; its close button by testid.
func TestClickCoveredNamesOverlay(t *testing.T) {
	p := openHTML(t, `<button data-testid="b">Confirm</button>
<div class="sheet" data-testid="promo-sheet" style="position:fixed;inset:0;background:#eee"><button data-testid="promo-close">Not now</button></div>`)
	_, err := click(ctxT(t, 15*time.Second), p, nil, Target{TestID: "b"})
	se := wantCode(t, err, sdk.CodeTargetCovered, `inside div.sheet[data-testid="promo-sheet"]`, `mm_click {"testId": "promo-close"}`)
	if se.Details["closeTestId"] != "promo-close" {
		t.Errorf("details %v", se.Details)
	}
}

// A loading veil goes away by itself: the click waits for it past
// CoveredFor, up to its own timeout, and lands.
func TestClickWaitsForLoadingVeil(t *testing.T) {
	p := openHTML(t, `<button data-testid="b" onclick="document.body.setAttribute('data-hit','1')">Confirm</button>
<div id="veil" class="loading-overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"><div class="spinner"></div></div>
<script>setTimeout(() => document.getElementById('veil').remove(), 1600)</script>`)
	if _, err := click(ctxT(t, 10*time.Second), p, nil, Target{TestID: "b"}); err != nil {
		t.Fatal(err)
	}
	if attr(t, p, "body", "data-hit") != "1" {
		t.Error("not clicked once the veil went")
	}
}

// TestCloseOverlayOverAScreen: after a wallet navigation, the screen is
// read once when nothing covers it (covered false: no second check); a
// known overlay with a close control is closed and named; one without
// stays, is reported covered, and ScreenCovered then refuses the screen
// with MM_TARGET_COVERED naming it.
func TestCloseOverlayOverAScreen(t *testing.T) {
	ctx := ctxT(t, 20*time.Second)
	const page = `<h1>Settings</h1>
<div id="menu" class="mm-modal" style="position:fixed;inset:0;background:#fff">
  <section class="multichain-account-menu-popover" style="position:absolute;inset:0"><h2>Accounts</h2>%s</section>
</div>`
	clean := openHTML(t, `<h1>Settings</h1>`)
	if closed, covered, err := CloseOverlay(ctx, clean); closed != "" || covered || err != nil {
		t.Fatalf("uncovered screen: closed %q, covered %v, %v", closed, covered, err)
	}
	closable := openHTML(t, fmt.Sprintf(page, `<button aria-label="Close" onclick="document.getElementById('menu').remove()">x</button>`))
	closed, covered, err := CloseOverlay(ctx, closable)
	if !strings.Contains(closed, "account menu") || !covered || err != nil {
		t.Fatalf("closable menu: closed %q, covered %v, %v", closed, covered, err)
	}
	if err := ScreenCovered(ctx, closable, "settings"); err != nil {
		t.Fatalf("the screen is still covered after the close: %v", err)
	}
	stuck := openHTML(t, fmt.Sprintf(page, ``))
	closed, covered, err = CloseOverlay(ctx, stuck)
	if closed != "" || !covered || err != nil {
		t.Fatalf("menu without a close control: closed %q, covered %v, %v", closed, covered, err)
	}
	err = ScreenCovered(ctx, stuck, "settings")
	if code := sdk.AsError(err).Code; err == nil || code != sdk.CodeTargetCovered || !strings.Contains(err.Error(), "account menu") {
		t.Fatalf("covered screen: %v", err)
	}
}

// CentreBoxedJS is true wherever CloseOverlay's read of the centre finds a
// box (a wallet navigation skips that read when it is false), and false on
// a plain screen, where the read is skipped. (A shadow root's dialog is
// neither's: the centre's hit is its host.)
func TestCentreBoxedFindsEveryCentreCover(t *testing.T) {
	ctx := ctxT(t, 30*time.Second)
	pages := map[string]string{
		"plain":        `<h1>Settings</h1><button data-testid="b">Go</button>`,
		"account menu": accountMenu,
		"fixed sheet":  `<div class="sheet" style="position:fixed;inset:0;background:#eee"><p>promo</p></div>`,
		"dialog role":  `<div role="dialog" style="position:absolute;inset:0"><p>confirm</p></div>`,
		"deep in a modal": `<div class="mm-modal" style="position:absolute;inset:0">` + strings.Repeat("<div>", 15) +
			`<p style="height:100vh">deep</p>` + strings.Repeat("</div>", 15) + `</div>`,
		"shadow dialog": `<div id="host" style="position:absolute;inset:0"></div><script>
const r = document.getElementById('host').attachShadow({mode: 'open'});
r.innerHTML = '<div role="dialog" style="position:absolute;inset:0"><p style="height:100vh">in shadow</p></div>';
</script>`,
	}
	for name, html := range pages {
		p := openHTML(t, html)
		var boxed bool
		if err := Eval(ctx, p, CentreBoxedJS, EvalOptions{Idempotent: true}, &boxed); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		main, err := mainFrame(p.Context(ctx))
		if err != nil {
			t.Fatal(err)
		}
		var c *cover
		if err := evalIn(p.Context(ctx), main, jsCentreCover, idem, &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c != nil && !boxed {
			t.Errorf("%s: centreCover finds %+v but CentreBoxedJS is false", name, c)
		}
		if name == "plain" && boxed {
			t.Errorf("plain screen: CentreBoxedJS is true")
		}
		if name == "account menu" && (c == nil || !boxed) {
			t.Errorf("account menu: centreCover %+v, CentreBoxedJS %v", c, boxed)
		}
	}
}
