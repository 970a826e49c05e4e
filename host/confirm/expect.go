package confirm

import (
	"strconv"
	"strings"
)

// Expect is what an agent means to approve (mm_confirm's expect): each
// field given must hold for the request as the dapp sent it and for what
// the wallet shows.
type Expect struct {
	Kind      string `json:"kind,omitempty"`
	Origin    string `json:"origin,omitempty"`
	To        string `json:"to,omitempty"`
	Value     string `json:"value,omitempty"` // ETH, decimal ("1", "0.5")
	Recipient string `json:"recipient,omitempty"`
	Spender   string `json:"spender,omitempty"`
	Amount    string `json:"amount,omitempty"` // token units, decimal
	ChainID   *int64 `json:"chainId,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Check lists each field of e that the request or the wallet's screen
// does not match (empty when all hold).
func (e Expect) Check(d Decoded, s Shown) []Mismatch {
	out := []Mismatch{}
	bad := func(field, want, req, shown string) {
		out = append(out, Mismatch{Field: field, Expected: want, Requested: req, Shown: shown})
	}
	if e.Kind != "" && e.Kind != d.Kind && !(e.Kind == "transaction" && IsTransaction(d.Kind)) {
		bad("kind", e.Kind, d.Kind, "")
	}
	if e.Origin != "" && !sameOrigin(e.Origin, d.Origin) {
		bad("origin", e.Origin, d.Origin, s.Origin)
	}
	addr := func(field, want, req, shown string) {
		if want == "" {
			return
		}
		if !SameAddress(want, req) || (shown != "" && !SameAddress(want, shown)) {
			bad(field, want, req, shown)
		}
	}
	addr("to", e.To, d.To, s.To)
	addr("recipient", e.Recipient, d.Recipient, s.Recipient)
	addr("spender", e.Spender, d.Spender, s.Spender)
	if e.Value != "" {
		shown := ""
		if isEtherAmount(s.Amount) {
			shown = s.Amount
		}
		if !sameAmount(e.Value, d.Value) || (shown != "" && !sameAmount(e.Value, shown)) {
			bad("value", e.Value, d.Value, s.Amount)
		}
	}
	if e.Amount != "" {
		if !sameAmount(e.Amount, d.Amount) || (s.Cap != "" && !sameAmount(e.Amount, s.Cap)) {
			bad("amount", e.Amount, d.Amount, s.Cap)
		}
	}
	if e.ChainID != nil && *e.ChainID != d.ChainID {
		bad("chainId", strconv.FormatInt(*e.ChainID, 10), strconv.FormatInt(d.ChainID, 10), s.ChainID)
	}
	if e.Message != "" && squash(e.Message) != squash(d.Message) {
		bad("message", e.Message, d.Message, s.Message)
	}
	return out
}

// Fields names the mismatches' fields, for a message.
func Fields(ms []Mismatch) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Field
	}
	return strings.Join(names, ", ")
}
