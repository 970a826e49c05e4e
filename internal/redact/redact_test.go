package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	srp      = "spread raise short crane omit tent fringe mandate neglect detail suspect cradle"
	key      = "0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
	password = "correct horse battery staple"
)

func TestSecretName(t *testing.T) {
	for s, want := range map[string]bool{
		"create-password-new": true, "#pw-new": true, "newPassword": true, "import-srp__srp-word-3": true,
		"fromPrivateKey": true, "private_key": true, "Private key": true, "pk": true, "seedPhrase": true,
		"recovery-phrase-chip-0": true, "mnemonic": true, "api_key": true, "seed": true, "secretNote": true,
		"seedContracts": false, "mm_seed_contract": false, "amount-input": false, "testId": false,
		"upward": false, "spk-list": false, "text": false, "fixturePreset": false, "": false,
	} {
		if got := SecretName(s); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestWithholdTyped(t *testing.T) {
	harmless := Field{Known: true, InputType: "text", Hints: []string{"amount", "amount-input"}}
	if WithholdTyped(harmless, "0.01") {
		t.Error("an amount typed into a known amount field was withheld")
	}
	for name, c := range map[string]struct {
		f    Field
		text string
	}{
		"unknown field (client)":     {Field{Hints: []string{"amount-input"}}, "0.01"},
		"password input":             {Field{Known: true, InputType: "password", Hints: []string{"x"}}, "hunter22"},
		"neutral selector #pw-new":   {Field{Known: true, InputType: "text", Hints: []string{"#pw-new"}}, password},
		"srp into a harmless field":  {harmless, srp},
		"key into a harmless field":  {harmless, key},
		"label says recovery phrase": {Field{Known: true, Hints: []string{"field-3", "Recovery phrase"}}, "abc"},
		"accessible name of a11yRef": {Field{Known: true, Hints: []string{"Confirm password"}}, "abc"},
	} {
		if !WithholdTyped(c.f, c.text) {
			t.Errorf("%s: text not withheld", name)
		}
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"shown: " + srp + ".": "shown: [redacted 12 words].",
		"1. spread 2. raise 3. short 4. crane 5. omit 6. tent 7. fringe 8. mandate 9. neglect 10. detail 11. suspect 12. cradle": "1. [redacted 12 words]",
		`["spread","raise","short","crane","omit","tent","fringe","mandate","neglect","detail","suspect","cradle"]`:              `["[redacted 12 words]"]`,
		"key " + key: "key [redacted 66 chars]",
		// A numbered list cut at 100 characters, as a testid's text is.
		"1. spread 2. raise 3. short 4. crane 5. omit 6. tent 7. fringe 8. mandate 9. neglect 10. detail 11. sus": "1. [redacted 10 words] 11. sus",
		"1. send 2. swap 3. bridge": "1. send 2. swap 3. bridge",
		// In JSON, after a key that is a BIP-39 word itself.
		`{"text":"1. spread 2. raise 3. short 4. crane 5. omit 6. tent 7. fringe"}`: `{"text":"1. [redacted 7 words]"}`,
		"the quick brown fox jumps over the lazy dog":                               "the quick brown fox jumps over the lazy dog",
		// Eleven words are not a phrase; a signature is not a key.
		"spread raise short crane omit tent fringe mandate neglect detail suspect": "spread raise short crane omit tent fringe mandate neglect detail suspect",
		"0x" + strings.Repeat("ab", 65):                                            "0x" + strings.Repeat("ab", 65),
		"0x5cfe73b6021e818b776b421b1c4db2474086a7e1":                               "0x5cfe73b6021e818b776b421b1c4db2474086a7e1",
	} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestArgsAtAnyDepth(t *testing.T) {
	var args map[string]any
	json.Unmarshal([]byte(`{
		"steps": [
			{"tool": "mm_type", "args": {"a11yRef": "e3", "text": "`+password+`"}},
			{"tool": "mm_type", "args": {"selector": "#pw-new", "text": "`+password+`"}},
			{"tool": "mm_clipboard", "args": {"action": "write", "text": "`+srp+`"}},
			{"tool": "mm_seed_contract", "args": {"contractName": "hst", "deployerOptions": {"fromPrivateKey": "`+key+`"}}},
			{"tool": "mm_click", "args": {"testId": "send"}}
		],
		"note": "my phrase is `+srp+`"
	}`), &args)
	out, secrets := Args(args, true)
	b, _ := json.Marshal(out)
	for _, s := range []string{password, srp, key, "spread"} {
		if strings.Contains(string(b), s) {
			t.Errorf("%q survived: %s", s, b)
		}
	}
	if !strings.Contains(string(b), `"testId":"send"`) || !strings.Contains(string(b), `"a11yRef":"e3"`) {
		t.Errorf("harmless arguments lost: %s", b)
	}
	echo := "typed " + password + " and " + key + " then " + srp
	if got := Scrub(echo, secrets); strings.Contains(got, password) || strings.Contains(got, "spread") || strings.Contains(got, key[2:]) {
		t.Errorf("Scrub left a secret: %s", got)
	}
	// The top-level text of a harmless field is kept when the host says so.
	out, _ = Args(map[string]any{"testId": "amount", "text": "0.01"}, true)
	if out["text"] != "0.01" {
		t.Errorf("released text = %v", out["text"])
	}
	out, _ = Args(map[string]any{"testId": "amount", "text": "0.01"}, false)
	if !IsPlaceholder(out["text"]) {
		t.Errorf("held text = %v", out["text"])
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	line := "anvil: Mnemonic: " + srp + " / " + key + "\n"
	if n, err := w.Write([]byte(line)); n != len(line) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if strings.Contains(b.String(), "spread") || strings.Contains(b.String(), key[2:]) || !strings.HasPrefix(b.String(), "anvil: Mnemonic: [redacted 12 words]") {
		t.Fatalf("logged %q", b.String())
	}
}
