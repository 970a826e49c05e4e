package knowledge

import "testing"

func TestSensitive(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		h    FieldHints
		want bool
	}{
		"unlock password testid":      {FieldHints{TestID: "unlock-password"}, true},
		"create password testid":      {FieldHints{TestID: "create-password-new"}, true},
		"srp word testid":             {FieldHints{TestID: "import-srp__srp-word-3"}, true},
		"srp paste button":            {FieldHints{TestID: "srp-input-import__paste-button"}, true},
		"amount input":                {FieldHints{TestID: "amount-input", InputType: "text"}, false},
		"password input type":         {FieldHints{InputType: "password", TestID: "field-1"}, true},
		"password type any case":      {FieldHints{InputType: "PASSWORD"}, true},
		"selector with password":      {FieldHints{Selector: "input[name=newPassword]"}, true},
		"autocomplete new-password":   {FieldHints{Autocomplete: "new-password"}, true},
		"seed phrase label":           {FieldHints{Label: "Secret Recovery Phrase"}, true},
		"mnemonic name":               {FieldHints{Name: "mnemonic"}, true},
		"private key placeholder":     {FieldHints{Placeholder: "Enter your private key string here"}, true},
		"privateKey id":               {FieldHints{ID: "privateKeyInput"}, true},
		"pk as a word":                {FieldHints{TestID: "import-pk-input"}, true},
		"pk inside a word":            {FieldHints{TestID: "pkg-list"}, false},
		"aria label":                  {FieldHints{AriaLabel: "Seed phrase word 1"}, true},
		"a11y name":                   {FieldHints{A11yName: "Recovery phrase"}, true},
		"search box":                  {FieldHints{TestID: "search-input", Placeholder: "Search tokens", InputType: "search"}, false},
		"recipient address":           {FieldHints{TestID: "ens-input", Placeholder: "Enter public address (0x) or ENS name"}, false},
		"empty":                       {FieldHints{}, false},
		"network rpc url":             {FieldHints{TestID: "network-form-rpc-url"}, false},
		"custom nonce":                {FieldHints{TestID: "custom-nonce-input"}, false},
		"account name":                {FieldHints{TestID: "account-name-input", Label: "Account name"}, false},
		"secret in name":              {FieldHints{Name: "client_secret"}, true},
		"onboarding srp textarea":     {FieldHints{Selector: "#import-srp__srp-word-0"}, true},
		"password confirm":            {FieldHints{TestID: "create-password-confirm"}, true},
		"unlock page by a11y only":    {FieldHints{A11yName: "Password"}, true},
		"gas limit with text type":    {FieldHints{TestID: "gas-limit-input", InputType: "number"}, false},
		"token symbol":                {FieldHints{TestID: "import-tokens-modal-custom-symbol"}, false},
		"swap amount from":            {FieldHints{TestID: "prepare-swap-page-from-token-amount"}, false},
		"ledger hd path select input": {FieldHints{TestID: "hd-path-select"}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := Sensitive(tc.h, "x"); got != tc.want {
				t.Errorf("Sensitive(%+v) = %v, want %v", tc.h, got, tc.want)
			}
		})
	}
}

func TestSensitiveText(t *testing.T) {
	t.Parallel()
	h := FieldHints{TestID: "amount-input", InputType: "text"}
	if Sensitive(h, "0.01") {
		t.Error("an amount was sensitive")
	}
	if !Sensitive(h, "spread raise short crane omit tent fringe mandate neglect detail suspect cradle") {
		t.Error("an SRP typed into an amount field was not sensitive")
	}
}
