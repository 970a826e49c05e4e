package e2e

import (
	"net/url"
	"strings"
	"testing"
)

// TestConfirmationShownMetaMaskMarkup: the test wallet renders its send and
// personal_sign screens as a real MetaMask 11.16.7 test build does (fixture
// setting TestWalletSettings.metamaskMarkup: no confirm-* testids, the
// action name upper-cased by CSS, the amount behind a ticker avatar, the
// recipient shortened, the message behind its "Message:" row title).
// mm_confirmation reports what the screen shows as the user reads it
// (title "Sending ETH", amount "1", the recipient, the message alone) and
// finds no mismatch where the wallet shows what the dapp asked.
func TestConfirmationShownMetaMaskMarkup(t *testing.T) {
	h, _ := walletHost(t)
	launchBehaving(t, h, map[string]any{"metamaskMarkup": true})
	srv := confirmDapp(t)
	openConfirmDapp(t, h, srv, url.Values{"to": {recipient}, "value": {"0xde0b6b3a7640000"}}) // 1 ETH
	must(t, h.Call("mm_click", map[string]any{"testId": "connect"}))
	must(t, h.Call("mm_confirm", map[string]any{"action": "approve"}))
	eventuallyText(t, h, "out", `["`+account0+`"]`)

	var c struct {
		confirmation
		Shown struct{ Title, To, Amount, Network, Message, Origin string }
	}
	must(t, h.Call("mm_click", map[string]any{"testId": "tx"}))
	must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
	if c.Shown.Title != "Sending ETH" || c.Shown.Amount != "1" || !strings.HasPrefix(strings.ToLower(recipient), strings.ToLower(strings.Split(c.Shown.To, "...")[0])) ||
		!strings.Contains(c.Shown.Origin, "127.0.0.1") || c.Shown.Network == "" {
		t.Fatalf("send shown %+v", c.Shown)
	}
	if len(c.Mismatches) != 0 {
		t.Fatalf("send mismatches %+v (shown %+v)", c.Mismatches, c.Shown)
	}
	must(t, h.Call("mm_confirm", map[string]any{"action": "reject"}))

	must(t, h.Call("mm_click", map[string]any{"testId": "sign"}))
	must(t, h.Call("mm_confirmation", map[string]any{})).Decode(t, &c)
	if c.Shown.Message != "Sign in to the confirm dapp" || c.Shown.Title != "Signature request" {
		t.Fatalf("personal_sign shown %+v", c.Shown)
	}
	if len(c.Mismatches) != 0 {
		t.Fatalf("personal_sign mismatches %+v (shown %+v)", c.Mismatches, c.Shown)
	}
	must(t, h.Call("mm_confirm", map[string]any{"action": "approve", "expect": map[string]any{"message": "Sign in to the confirm dapp"}}))
	must(t, h.Call("mm_cleanup", map[string]any{}))
}
