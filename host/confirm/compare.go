package confirm

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
)

// Shown is what the wallet shows on its confirmation screen, as text
// (fields it does not show are "").
type Shown struct {
	// Route is the popup's hash route; Title its heading.
	Route     string `json:"route,omitempty"`
	Title     string `json:"title,omitempty"`
	Origin    string `json:"origin,omitempty"`
	To        string `json:"to,omitempty"`
	Amount    string `json:"amount,omitempty"`
	Recipient string `json:"recipient,omitempty"`
	Spender   string `json:"spender,omitempty"`
	Cap       string `json:"cap,omitempty"`
	Network   string `json:"network,omitempty"`
	ChainID   string `json:"chainId,omitempty"`
	Fee       string `json:"fee,omitempty"`
	Data      string `json:"data,omitempty"`
	Message   string `json:"message,omitempty"`
	// Buttons are the screen's approve and reject buttons' testids.
	Approve string `json:"approveTestId,omitempty"`
	Reject  string `json:"rejectTestId,omitempty"`
	// Step is a connect's step: "choose-account" or "permissions".
	Step string `json:"step,omitempty"`
}

// Mismatch is one field where two sides of a confirmation differ.
type Mismatch struct {
	Field     string `json:"field"`
	Requested string `json:"requested,omitempty"`
	Shown     string `json:"shown,omitempty"`
	Expected  string `json:"expected,omitempty"`
}

func (m Mismatch) String() string {
	switch {
	case m.Expected != "":
		return fmt.Sprintf("%s: expected %q, requested %q, shown %q", m.Field, m.Expected, m.Requested, m.Shown)
	default:
		return fmt.Sprintf("%s: requested %q, shown %q", m.Field, m.Requested, m.Shown)
	}
}

// Mismatches lists each field the wallet shows otherwise than the dapp
// asked (a field the wallet does not show is not compared).
func Mismatches(d Decoded, s Shown) []Mismatch {
	out := []Mismatch{}
	add := func(field, req, shown string) {
		out = append(out, Mismatch{Field: field, Requested: req, Shown: shown})
	}
	if s.Origin != "" && d.Origin != "" && !sameOrigin(d.Origin, s.Origin) {
		add("origin", d.Origin, s.Origin)
	}
	if IsTransaction(d.Kind) {
		if s.To != "" && d.To != "" && !SameAddress(d.To, s.To) {
			add("to", d.To, s.To)
		}
		if s.Amount != "" && d.Value != "" && isEtherAmount(s.Amount) && !sameAmount(d.Value, s.Amount) {
			add("value", d.Value+" ETH", s.Amount)
		}
		if s.Recipient != "" && d.Recipient != "" && !SameAddress(d.Recipient, s.Recipient) {
			add("recipient", d.Recipient, s.Recipient)
		}
		if s.Spender != "" && d.Spender != "" && !SameAddress(d.Spender, s.Spender) {
			add("spender", d.Spender, s.Spender)
		}
		if s.Cap != "" && d.Amount != "" && !sameAmount(d.Amount, s.Cap) {
			add("amount", d.Amount, s.Cap)
		}
		if s.Data != "" && d.Data != "" && !strings.EqualFold(strings.TrimSpace(s.Data), d.Data) {
			add("data", d.Data, s.Data)
		}
	}
	switch d.Kind {
	case KindPersonalSign:
		if s.Message != "" && squash(s.Message) != squash(d.Message) {
			add("message", d.Message, s.Message)
		}
	case KindTypedData:
		if s.Message != "" && !sameTypedMessage(d.TypedData, s.Message) {
			b, _ := json.Marshal(typedMessage(d.TypedData))
			add("message", string(b), s.Message)
		}
	}
	return out
}

// isEtherAmount reports whether a shown amount is in ether (a token
// amount shown in the same place is compared as the token amount).
func isEtherAmount(s string) bool {
	u := strings.ToUpper(s)
	return strings.Contains(u, "ETH") || !strings.ContainsAny(u, "ABCDFGHIJKLMNOPQRSUVWXYZ")
}

// SameAddress compares addresses case-insensitively; a shown address may
// be shortened ("0x5CfE7…6a7e1", "0x5cfe...a7e1"): its ends must match.
func SameAddress(full, shown string) bool {
	f, s := strings.ToLower(strings.TrimSpace(full)), strings.ToLower(strings.TrimSpace(shown))
	if f == s {
		return true
	}
	for _, sep := range []string{"…", "..."} {
		if a, b, ok := strings.Cut(s, sep); ok && len(a) >= 4 && len(b) >= 3 {
			return strings.HasPrefix(f, a) && strings.HasSuffix(f, b)
		}
	}
	return false
}

// sameOrigin compares an origin with a shown one, which may leave out the
// scheme or show more text around it.
func sameOrigin(origin, shown string) bool {
	host := origin
	if u, err := url.Parse(origin); err == nil && u.Host != "" {
		host = u.Host
	}
	return strings.Contains(strings.ToLower(shown), strings.ToLower(host))
}

// squash is text with its whitespace runs made single spaces.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// typedMessage is typed data's message (the whole data when it has none).
func typedMessage(td any) any {
	if m, ok := td.(map[string]any); ok {
		if msg, ok := m["message"]; ok {
			return msg
		}
	}
	return td
}

// sameTypedMessage compares typed data's message with the shown text: as
// JSON when the shown text is JSON, else every string and number of the
// message must be in the shown text.
func sameTypedMessage(td any, shown string) bool {
	want := typedMessage(td)
	var got any
	if json.Unmarshal([]byte(shown), &got) == nil {
		return reflect.DeepEqual(normalize(want), normalize(got))
	}
	ok := true
	walkLeaves(want, func(leaf string) {
		if !strings.Contains(shown, leaf) {
			ok = false
		}
	})
	return ok
}

// normalize makes numbers and numeric strings compare alike.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case float64:
		return fmt.Sprint(x)
	case string:
		return strings.ToLower(x)
	}
	return v
}

func walkLeaves(v any, fn func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			walkLeaves(e, fn)
		}
	case []any:
		for _, e := range x {
			walkLeaves(e, fn)
		}
	case string:
		fn(x)
	case float64:
		fn(fmt.Sprint(x))
	}
}
