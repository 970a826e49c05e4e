package discovery

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/sdk"
)

// CoveredFor is how long a click's target must stay covered by another
// element, at every try, before the click fails with MM_TARGET_COVERED
// instead of waiting for its whole timeout: a modal or popover left open
// does not go away by itself, a transition's overlay does within it (a
// loading veil is waited for up to the timeout: see cover.transient).
const CoveredFor = time.Second

// cover is what js/action.js found at the target's click point.
type cover struct {
	// Hit describes the element at the point (describe in js/lib.js).
	Hit string `json:"hit"`
	// Within describes the overlay hit is part of (its outermost
	// dialog-like ancestor: a dialog, a modal, popover or overlay class, a
	// fixed box), "" when that is Hit itself or there is none.
	Within string `json:"within"`
	// Chain is that element and its ancestors, innermost first, up to the
	// body.
	Chain []coverNode `json:"chain"`
	// Close is a control inside the covering overlay that likely closes
	// it (a close button), "" when none was found.
	Close coverClose `json:"close"`
}

// coverNode is one element of cover.Chain.
type coverNode struct {
	Tag    string `json:"tag"`
	TestID string `json:"testId"`
	Class  string `json:"class"`
	Role   string `json:"role"`
	// Busy is aria-busy="true".
	Busy bool `json:"busy"`
}

// coverClose names a close control: by testid when it has one, else by a
// CSS selector.
type coverClose struct {
	TestID   string `json:"testId"`
	Selector string `json:"selector"`
}

// knownOverlay is a wallet modal or popover an agent may leave open.
type knownOverlay struct {
	// testID or class (a class name, matched as a whole word) identifies it.
	testID, class string
	// name is what the error calls it.
	name string
}

// knownOverlays are the wallet's modals and popovers, most specific
// first (MetaMask's design system: mm-modal, popover; the account menu).
var knownOverlays = []knownOverlay{
	{class: "multichain-account-menu-popover", name: "MetaMask's account menu"},
	{testID: "multichain-account-menu-popover", name: "MetaMask's account menu"},
	{class: "mm-modal", name: "a MetaMask modal"},
	{class: "mm-popover", name: "a MetaMask popover"},
	{class: "popover-wrap", name: "a MetaMask popover"},
	{class: "menu__container", name: "a MetaMask menu"},
}

// transient reports whether the cover is a loading veil (a class with
// "loading" or "spinner", role progressbar, aria-busy): it goes away by
// itself, so a click waits for it up to its own timeout.
func (c *cover) transient() bool {
	for _, n := range c.Chain {
		l := strings.ToLower(n.Class)
		if strings.Contains(l, "loading") || strings.Contains(l, "spinner") || n.Role == "progressbar" || n.Busy {
			return true
		}
	}
	return false
}

// overlay names the known overlay in chain, "" for none.
func (c *cover) overlay() string {
	for _, k := range knownOverlays {
		for _, n := range c.Chain {
			if k.testID != "" && n.TestID == k.testID {
				return k.name
			}
			if k.class != "" && hasClass(n.Class, k.class) {
				return k.name
			}
		}
	}
	return ""
}

func hasClass(list, c string) bool {
	for _, f := range strings.Fields(list) {
		if f == c {
			return true
		}
	}
	return false
}

// howToClose is the advice for closing what covers the target.
func (c *cover) howToClose() string {
	switch {
	case c.Close.TestID != "":
		return fmt.Sprintf("close it first: mm_click {\"testId\": %q}", c.Close.TestID)
	case c.Close.Selector != "":
		return fmt.Sprintf("close it first: mm_click {\"selector\": %q}", c.Close.Selector)
	default:
		return "close it first (its close or cancel button; mm_describe_screen lists them), or wait for it to go"
	}
}

// named is what covers: the known overlay's name with the covering
// element (and the box it is inside), or that element alone.
func (c *cover) named() string {
	what := c.Hit
	if c.Within != "" {
		what += " inside " + c.Within
	}
	if name := c.overlay(); name != "" {
		what = name + " (" + what + ")"
	}
	return what
}

// addDetails adds what covers, and its close control, to d.
func (c *cover) addDetails(d map[string]any) map[string]any {
	d["coveredBy"] = c.Hit
	if c.Within != "" {
		d["coveredWithin"] = c.Within
	}
	if name := c.overlay(); name != "" {
		d["overlay"] = name
	}
	if c.Close.TestID != "" {
		d["closeTestId"] = c.Close.TestID
	} else if c.Close.Selector != "" {
		d["closeSelector"] = c.Close.Selector
	}
	return d
}

// coveredError is MM_TARGET_COVERED for a's cover: it names the covering
// element, the known wallet overlay it belongs to, and how to close it.
func coveredError(t Target, a attempt) error {
	c := a.Cover
	details := c.addDetails(map[string]any{"target": t.String(), "matched": a.Count, "coveredForMs": CoveredFor.Milliseconds()})
	return sdk.Errorf(sdk.CodeTargetCovered, "cannot click %s: it has been covered by %s for %v; %s",
		t, c.named(), CoveredFor, c.howToClose()).WithDetails(details)
}

// ScreenCovered checks that a wallet screen really shows: when a known
// wallet overlay (knownOverlays: a modal or popover left open) covers the
// centre of p's viewport for CoveredFor, it returns MM_TARGET_COVERED
// naming it and how to close it. It returns nil when nothing known covers
// the screen, or when the page cannot be read (the caller's own checks
// have the say then).
func ScreenCovered(ctx context.Context, p *rod.Page, screen string) error {
	ctx, cancel := context.WithTimeout(ctx, CoveredFor+time.Second)
	defer cancel()
	p = p.Context(ctx)
	main, err := mainFrame(p)
	if err != nil {
		return nil
	}
	var since time.Time
	for {
		var c *cover
		if err := evalIn(p, main, jsCentreCover, idem, &c); err != nil || c == nil || c.overlay() == "" {
			return nil
		}
		if since.IsZero() {
			since = time.Now()
		} else if time.Since(since) >= CoveredFor {
			return sdk.Errorf(sdk.CodeTargetCovered, "the %s screen loaded but %s is still open over it; %s, then navigate again", screen, c.named(), c.howToClose()).
				WithDetails(c.addDetails(map[string]any{"screen": screen}))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// CentreBoxedJS is a page expression, true when the viewport's centre is
// in a dialog-like box: coverOf's test (dialogLike) without its bound of
// 12 ancestors, so false means CloseOverlay and ScreenCovered would find
// nothing there. A wallet navigation reads it as its render wait ends, in
// the same evaluation, and reads the centre again only when it is true.
var CentreBoxedJS = `(() => {
` + jsDialogLike + `
  const hit = document.elementFromPoint(innerWidth / 2, innerHeight / 2);
  for (let n = hit; n && n.nodeType === 1 && n.localName !== 'body' && n.localName !== 'html'; ) {
    if (dialogLike(n)) return true;
    const pn = n.parentNode;
    n = n.assignedSlot || n.parentElement || (pn && pn.host) || null;
  }
  return false;
})()`

// CloseOverlay closes a known wallet overlay (knownOverlays: MetaMask's
// account menu, a modal or popover left open) that covers the centre of
// p's viewport, by clicking its close control, and returns the overlay's
// name; "" when nothing known covers the screen, the overlay has no close
// control, or the page cannot be read (ScreenCovered then has the say).
// covered says a known overlay was over the screen: without one, the read
// was the check ScreenCovered would make, and need not be made again.
// A wallet navigation does this: the agent asked for a screen, and a menu
// left open over it (MetaMask keeps its account menu open across routes)
// is not what they asked for.
func CloseOverlay(ctx context.Context, p *rod.Page) (closed string, covered bool, err error) {
	main, err := mainFrame(p.Context(ctx))
	if err != nil {
		return "", false, nil
	}
	var c *cover
	if err := evalIn(p.Context(ctx), main, jsCentreCover, idem, &c); err != nil || c == nil || c.overlay() == "" {
		return "", false, nil
	}
	t := Target{TestID: c.Close.TestID, Selector: c.Close.Selector}
	if t.TestID != "" {
		t.Selector = ""
	}
	if t.TestID == "" && t.Selector == "" {
		return "", true, nil
	}
	if _, err := Click(ctx, p, nil, t); err != nil {
		return "", true, err
	}
	return c.overlay(), true, nil
}
