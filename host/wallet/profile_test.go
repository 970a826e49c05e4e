package wallet

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/sdk"
)

// page builds a snapshot with the given elements present.
func page(url, role string, present ...string) sdk.PageSnapshot {
	els := map[string]sdk.ElementProbe{}
	for _, p := range present {
		els[p] = sdk.ElementProbe{Present: true}
	}
	return sdk.PageSnapshot{URL: url, Role: role, Elements: els}
}

func withApprovals(p sdk.PageSnapshot, approvals ...string) sdk.PageSnapshot {
	var list []map[string]string
	for i := 0; i+1 < len(approvals); i += 2 {
		list = append(list, map[string]string{"id": approvals[i], "type": approvals[i+1]})
	}
	p.AppState, _ = json.Marshal(map[string]any{"isUnlocked": true, "approvals": list})
	return p
}

func TestMetaMaskScreens(t *testing.T) {
	p := MetaMask()
	const home, note = "chrome-extension://x/home.html", "chrome-extension://x/notification.html"
	tests := map[string]struct {
		page sdk.PageSnapshot
		want string
	}{
		"unlock route":        {page(home+"#/unlock", browser.RoleExtension), "unlock"},
		"unlock no slash":     {page(home+"#unlock", browser.RoleExtension), "unlock"},
		"welcome":             {page(home+"#/onboarding/welcome", browser.RoleExtension), "onboarding-welcome"},
		"import":              {page(home+"#/onboarding/import-with-recovery-phrase", browser.RoleExtension), "onboarding-import"},
		"password":            {page(home+"#/onboarding/create-password", browser.RoleExtension), "onboarding-password"},
		"completion":          {page(home+"#/onboarding/completion", browser.RoleExtension), "onboarding-complete"},
		"metametrics":         {page(home+"#/onboarding/metametrics", browser.RoleExtension), "onboarding-metametrics"},
		"metametrics testid":  {page(home+"#/whatever", browser.RoleExtension, "metametrics-i-agree"), "onboarding-metametrics"},
		"pin extension":       {page(home+"#/onboarding/pin-extension", browser.RoleExtension), "onboarding-pin-extension"},
		"pin extension id":    {page(home, browser.RoleExtension, "pin-extension-done"), "onboarding-pin-extension"},
		"settings":            {page(home+"#settings", browser.RoleExtension), "settings"},
		"settings subpage":    {page(home+"#/settings/advanced", browser.RoleExtension, "account-menu-icon"), "settings"},
		"settings query":      {page(home+"#settings?tab=1", browser.RoleExtension), "settings"},
		"not a prefix word":   {page(home+"#/settingsx", browser.RoleExtension), "unknown"},
		"home empty route":    {page(home, browser.RoleExtension, "account-menu-icon"), "home"},
		"home slash":          {page(home+"#/", browser.RoleExtension, "account-menu-icon"), "home"},
		"empty, no landmark":  {page(home, browser.RoleExtension), "unknown"},
		"landmark fallback":   {page(home, browser.RoleExtension, "unlock-password"), "unlock"},
		"send keeps header":   {page(home+"#/send", browser.RoleExtension, "account-menu-icon"), "send"},
		"unknown keeps hdr":   {page(home+"#/whatever", browser.RoleExtension, "account-menu-icon"), "unknown"},
		"unknown with unlock": {page(home+"#/whatever", browser.RoleExtension, "unlock-password"), "unlock"},
		"error page anywhere": {page(home+"#/", browser.RoleExtension, ".error-page", "error", "account-menu-icon"), "error"},
		"connect":             {page(note+"#/connect/abc", browser.RoleNotification), "connect"},
		"connect confirm":     {page(note+"#/connect/abc/confirm-permissions", browser.RoleNotification), "connect"},
		"transaction":         {page(note+"#/confirm-transaction/1", browser.RoleNotification), "confirm-transaction"},
		"signature":           {page(note+"#/confirm-transaction/1/signature-request", browser.RoleNotification), "confirm-signature"},
		"add network":         {withApprovals(page(note+"#/confirmation/n1", browser.RoleNotification), "x", "transaction", "n1", "wallet_addEthereumChain"), "add-network"},
		"switch network":      {withApprovals(page(note+"#/confirmation", browser.RoleNotification), "n2", "wallet_switchEthereumChain"), "switch-network"},
		"confirmation, none":  {page(note+"#/confirmation", browser.RoleNotification), "confirmation"},
		"bare popup connect":  {withApprovals(page(note, browser.RoleNotification), "p1", "wallet_requestPermissions"), "connect"},
		"bare popup typed":    {withApprovals(page(note, browser.RoleNotification), "s1", "eth_signTypedData_v4"), "confirm-signature"},
		"bare popup, nothing": {page(note, browser.RoleNotification), "unknown"},
		"popup unlock":        {page(note+"#unlock", browser.RoleNotification, "unlock-password"), "unlock"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := profileScreen(p, tc.page)
			if err != nil || got != tc.want {
				t.Fatalf("DetectScreen(%s) = %q, %v; want %q", tc.page.URL, got, err, tc.want)
			}
		})
	}
}

// Without an app state, the profile reads what the DOM shows and nothing
// it does not: no chain id, no shortened address.
func TestMetaMaskStateFromDOM(t *testing.T) {
	p := MetaMask()
	pg := page("chrome-extension://x/home.html#/", browser.RoleExtension, "account-menu-icon")
	pg.Elements["network"] = sdk.ElementProbe{Present: true, Text: "Localhost 8545"}
	pg.Elements["balance"] = sdk.ElementProbe{Present: true, Text: "25\nETH"}
	pg.Elements["account"] = sdk.ElementProbe{Present: true, Text: "0x5CfE7...86a7e1"}
	ws, err := profileState(p, pg)
	if err != nil {
		t.Fatal(err)
	}
	if ws.IsUnlocked == nil || !*ws.IsUnlocked || ws.NetworkName == nil || *ws.NetworkName != "Localhost 8545" ||
		ws.Balance == nil || *ws.Balance != "25 ETH" || ws.AccountAddress != nil || ws.ChainID != nil {
		t.Fatalf("DOM state %+v", ws)
	}
	pg.Elements["account"] = sdk.ElementProbe{Present: true, Text: "0x5CfE73b6021E818B776b421B1c4Db2474086a7e1"}
	if ws, _ := profileState(p, pg); ws.AccountAddress == nil {
		t.Fatal("a full address on the page was not read")
	}
	locked := page("chrome-extension://x/home.html#/unlock", browser.RoleExtension, "unlock-password")
	if ws, _ := profileState(p, locked); ws.IsUnlocked == nil || *ws.IsUnlocked {
		t.Fatalf("unlock screen reads as unlocked: %+v", ws)
	}
	errPage := page("chrome-extension://x/home.html#/", browser.RoleExtension, ".error-page", "error")
	errPage.Elements["errorMessage"] = sdk.ElementProbe{Present: true, Text: "Message: Cannot read properties of undefined"}
	if ws, _ := profileState(p, errPage); ws.ErrorMessage == nil || *ws.ErrorMessage != "Message: Cannot read properties of undefined" {
		t.Fatalf("error page message %+v", ws.ErrorMessage)
	}
}

// The app state wins over the DOM and is read in MetaMask 12's layout too.
func TestMetaMaskStateFromAppState(t *testing.T) {
	p := MetaMask()
	pg := page("chrome-extension://x/notification.html#/connect/1", browser.RoleNotification)
	pg.AppState = json.RawMessage(`{"isUnlocked":true,"address":"0x5cfe73b6021e818b776b421b1c4db2474086a7e1","chainId":"0x7a69","networkName":"Anvil","ticker":"ETH","balance":"0xde0b6b3a7640000","approvals":[]}`)
	ws, err := profileState(p, pg)
	if err != nil {
		t.Fatal(err)
	}
	if !*ws.IsUnlocked || *ws.AccountAddress != "0x5cfe73b6021e818b776b421b1c4db2474086a7e1" || *ws.ChainID != 31337 ||
		*ws.NetworkName != "Anvil" || *ws.Balance != "1 ETH" {
		t.Fatalf("app state %+v", ws)
	}
}

func TestParseChainID(t *testing.T) {
	for in, want := range map[string]int64{"0x539": 1337, "1337": 1337, " 0X1 ": 1} {
		if got, ok := parseChainID(in); !ok || got != want {
			t.Errorf("parseChainID(%q) = %d %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "eth", "0xzz"} {
		if _, ok := parseChainID(in); ok {
			t.Errorf("parseChainID(%q) accepted", in)
		}
	}
}

// profileScreen is p's DetectScreen of page.
func profileScreen(p *Profile, page sdk.PageSnapshot) (string, error) {
	res, err := p.DetectScreen(context.Background(), sdk.DetectScreenRequest{Page: page})
	return res.Screen, err
}

// profileState is p's State of page.
func profileState(p *Profile, page sdk.PageSnapshot) (sdk.WalletStatus, error) {
	res, err := p.State(context.Background(), sdk.StateRequest{Page: page})
	return res.Status, err
}
