package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/host/confirm"
	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/internal/jsonrpc"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Confirmation is mm_confirmation's answer: the pending confirmation, the
// request as the dapp sent it (decoded), what the wallet shows, and where
// the two differ.
type Confirmation struct {
	Kind   string `json:"kind"`
	Origin string `json:"origin"`
	// Request is nil when no captured request matches the popup (a page
	// mmcp does not drive asked).
	Request    *confirm.Decoded   `json:"request"`
	RequestID  string             `json:"requestId,omitempty"`
	Shown      confirm.Shown      `json:"shown"`
	Mismatches []confirm.Mismatch `json:"mismatches"`
	PageURL    string             `json:"pageUrl"`
	// dappURL is the requesting page's address.
	dappURL string
	// read says a confirmation screen was read (the zero value of a
	// failed read has none).
	read bool
}

// record is the step record's confirmation block of c, with outcome.
func (c Confirmation) record(outcome string) *confirm.Record {
	if !c.read {
		return nil
	}
	return &confirm.Record{Kind: c.Kind, Origin: c.Origin, Request: c.Request, Shown: c.Shown, Mismatches: c.Mismatches, Outcome: outcome}
}

// RecordConfirmation implements tools.Confirmed: what was read, pending.
func (c Confirmation) RecordConfirmation() any {
	if r := c.record(confirm.OutcomePending); r != nil {
		return r
	}
	return nil
}

// Confirmation waits (within wait) for the wallet's confirmation popup,
// makes it the active page and reads it beside the captured request it
// shows.
func (m *Manager) Confirmation(ctx context.Context, wait time.Duration) (Confirmation, error) {
	return onActive(ctx, m, func(s *Session) (Confirmation, error) {
		return m.confirmation(ctx, s, wait)
	})
}

// noRequestGrace is how long mm_confirmation waits for a popup when no
// dapp request waits for an approval (the request of a click just made
// may be on its way): then it answers MM_NO_CONFIRMATION.
const noRequestGrace = 1500 * time.Millisecond

func (m *Manager) confirmation(ctx context.Context, s *Session, wait time.Duration) (Confirmation, error) {
	if wait <= 0 {
		wait = browser.DefaultNotificationTimeout
	}
	first := wait
	if len(s.wallet.Requests().Pending()) == 0 {
		first = min(wait, noRequestGrace)
	}
	start := time.Now()
	nr, err := s.wallet.WaitForNotification(ctx, first)
	if err != nil && first < wait && isCode(err, sdk.CodeNotificationTimeout) {
		if len(s.wallet.Requests().Pending()) == 0 {
			return Confirmation{}, m.nothingPending(s)
		}
		nr, err = s.wallet.WaitForNotification(ctx, wait-time.Since(start))
	}
	if err != nil {
		return Confirmation{}, err
	}
	page := s.wallet.ActivePage()
	var shown confirm.Shown
	// The popup renders its screen a moment after its first paint: read
	// until the screen names its buttons.
	for {
		err = discovery.Eval(ctx, page, confirm.ShownScript, discovery.EvalOptions{Idempotent: true}, &shown)
		if err == nil && shown.Approve != "" {
			break
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
			return Confirmation{}, sdk.Errorf(sdk.CodeNotificationTimeout, "the wallet's popup (%s) showed no confirmation buttons: %v", nr.PageURL, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	c := Confirmation{Kind: confirm.KindOfRoute(shown.Route), Origin: shown.Origin, Shown: shown, PageURL: nr.PageURL, Mismatches: []confirm.Mismatch{}, read: true}
	if r, ok := pendingFor(s.wallet.Requests(), c.Kind); ok {
		d := confirm.Decode(ctx, r, m.dappChain(ctx, s, r.Origin), m.lookup(ctx, s))
		c.Request, c.RequestID, c.Kind, c.Origin, c.dappURL = &d, r.ID, d.Kind, r.Origin, r.URL
		c.Mismatches = confirm.Mismatches(d, shown)
	}
	return c, nil
}

// nothingPending is MM_NO_CONFIRMATION, naming the last request that
// needed an approval and what became of it.
func (m *Manager) nothingPending(s *Session) error {
	all := s.wallet.Requests().All()
	last := ""
	details := map[string]any{}
	for i := len(all) - 1; i >= 0; i-- {
		r := all[i]
		if !confirm.NeedsApproval(r.Method) {
			continue
		}
		state := "answered with a result"
		switch {
		case r.Error != nil:
			state = fmt.Sprintf("answered with error %d", r.Error.Code)
		case r.Abandoned:
			state = "abandoned: its page navigated or closed before an answer"
		}
		last = fmt.Sprintf(" (the last one, %s from %s, was %s)", r.Method, r.Origin, state)
		details["lastRequest"] = map[string]any{"method": r.Method, "origin": r.Origin, "state": state, "error": r.Error, "abandoned": r.Abandoned}
		break
	}
	return sdk.Errorf(sdk.CodeNoConfirmation, "no confirmation is pending: no wallet popup is open and no dapp request waits for an approval%s; make the dapp ask first (%s its button), then call %s again",
		last, m.tool("click"), m.tool("confirmation")).WithDetails(details)
}

// isCode reports whether err is an *sdk.Error with code.
func isCode(err error, code string) bool {
	var e *sdk.Error
	return errors.As(err, &e) && e.Code == code
}

// pendingFor is the captured request a popup of routeKind shows: the
// oldest pending one of its family (the wallet shows the oldest first).
func pendingFor(l *confirm.Log, routeKind string) (confirm.Request, bool) {
	for _, r := range l.Pending() {
		if confirm.SameFamily(confirm.Decode(context.Background(), r, 0, nil).Kind, routeKind) {
			return r, true
		}
	}
	return confirm.Request{}, false
}

// dappChain is the chain id origin's dapp was told last (eth_chainId, a
// chainChanged through a switch), else the session chain's.
func (m *Manager) dappChain(ctx context.Context, s *Session, origin string) int64 {
	all := s.wallet.Requests().All()
	for i := len(all) - 1; i >= 0; i-- {
		r := all[i]
		var hexID string
		if r.Origin == origin && r.Method == "eth_chainId" && json.Unmarshal(r.Result, &hexID) == nil {
			if v, ok := new(big.Int).SetString(strings.TrimPrefix(hexID, "0x"), 16); ok {
				return v.Int64()
			}
		}
	}
	if s.parts.Chain != nil {
		var hexID string
		if jsonrpc.Call(ctx, s.parts.Chain.RPCURL, "eth_chainId", nil, &hexID) == nil {
			if v, ok := new(big.Int).SetString(strings.TrimPrefix(hexID, "0x"), 16); ok {
				return v.Int64()
			}
		}
	}
	return 0
}

// lookup answers decoding's questions from the session's chain and its
// contract registry.
func (m *Manager) lookup(ctx context.Context, s *Session) confirm.Lookup {
	l := confirm.ChainLookup{Names: map[string]string{}, ABIs: map[string]string{}}
	if s.parts.Chain != nil {
		l.URL = s.parts.Chain.RPCURL
	}
	if deps, err := m.deployed(ctx, s); err == nil {
		for _, d := range deps {
			l.Names[strings.ToLower(d.ContractAddress)] = d.ContractName
			if d.ABI != "" {
				l.ABIs[strings.ToLower(d.ContractAddress)] = d.ABI
			}
		}
	}
	for name, addr := range s.parts.Deployed {
		l.Names[strings.ToLower(addr)] = name
	}
	return l
}

// ConfirmResult is mm_confirm's answer.
type ConfirmResult struct {
	Action       string       `json:"action"`
	Confirmation Confirmation `json:"confirmation"`
	// PopupClosed says the wallet closed its popup after the answer.
	PopupClosed bool `json:"popupClosed"`
	// Dapp is what the dapp received for its request (nil when the
	// request was not captured).
	Dapp *DappAnswer `json:"dapp"`
	// Transaction is the mined transaction of an approved one.
	Transaction *TxOutcome `json:"transaction,omitempty"`
	// outcome and expected are the record's (confirm.Record).
	outcome  string
	expected []confirm.Mismatch
}

// RecordConfirmation implements tools.Confirmed: what was read, how it
// was answered, and the transaction it sent.
func (r ConfirmResult) RecordConfirmation() any {
	rec := r.Confirmation.record(r.outcome)
	if rec == nil {
		return nil
	}
	rec.Expected = r.expected
	if r.Dapp != nil && r.Dapp.Error != nil {
		code := r.Dapp.Error.Code
		rec.DappError = &code
	}
	if tx := r.Transaction; tx != nil {
		rec.Transaction = &confirm.RecordTx{Hash: tx.Hash, Status: tx.Status}
	}
	return rec
}

// DappAnswer is the answer the dapp's request received.
type DappAnswer struct {
	Result     json.RawMessage   `json:"result,omitempty"`
	Error      *confirm.RPCError `json:"error,omitempty"`
	DurationMs int64             `json:"durationMs"`
}

// TxOutcome is a transaction's receipt, read from the session's chain.
type TxOutcome struct {
	Hash        string          `json:"hash"`
	Status      int             `json:"status"`
	BlockNumber uint64          `json:"blockNumber"`
	From        string          `json:"from"`
	To          string          `json:"to,omitempty"`
	GasUsed     uint64          `json:"gasUsed"`
	Fee         string          `json:"fee"`       // ETH paid for gas
	EthChange   string          `json:"ethChange"` // the sender's balance change in ETH, fee included
	Events      []confirm.Event `json:"events"`
}

// confirmWait bounds the wait for the popup in mm_confirm and for the
// dapp's answer and the receipt after the click.
const (
	answerWait  = 10 * time.Second
	receiptWait = 15 * time.Second
)

// Confirm answers the pending confirmation through the wallet's own
// buttons (both steps of a connect), after checking expect when given
// (MM_EXPECTATION_FAILED, nothing clicked). It waits until the popup is
// gone, for the dapp's answer and, for an approved transaction, for its
// receipt; the page that was active before is active again after.
func (m *Manager) Confirm(ctx context.Context, approve bool, expect *confirm.Expect, wait time.Duration) (ConfirmResult, error) {
	return onActive(ctx, m, func(s *Session) (ConfirmResult, error) {
		return m.confirm(ctx, s, approve, expect, wait)
	})
}

func (m *Manager) confirm(ctx context.Context, s *Session, approve bool, expect *confirm.Expect, wait time.Duration) (ConfirmResult, error) {
	before := s.wallet.Tabs().Active
	c, err := m.confirmation(ctx, s, wait)
	if err != nil {
		return ConfirmResult{}, err
	}
	res := ConfirmResult{Action: "reject", Confirmation: c, outcome: confirm.OutcomeFailed}
	if approve {
		res.Action = "approve"
	}
	if expect != nil {
		var d confirm.Decoded
		if c.Request != nil {
			d = *c.Request
		}
		if ms := expect.Check(d, c.Shown); len(ms) > 0 {
			lines := make([]string, len(ms))
			for i, mm := range ms {
				lines[i] = mm.String()
			}
			res.outcome, res.expected = confirm.OutcomeRefused, ms
			return res, sdk.Errorf(sdk.CodeExpectationFailed, "the confirmation does not match expect (%s): %s; nothing was approved or sent and the popup is still open: check the dapp, or %s {\"action\":\"reject\"}",
				confirm.Fields(ms), strings.Join(lines, "; "), m.tool("confirm")).
				WithDetails(map[string]any{"mismatches": ms, "confirmation": c})
		}
	}
	if err := m.answerPopup(ctx, s, approve, c); err != nil {
		return res, err
	}
	res.PopupClosed = true
	res.outcome = confirm.OutcomeRejected
	if approve {
		res.outcome = confirm.OutcomeApproved
	}
	if c.RequestID != "" {
		actx, cancel := context.WithTimeout(ctx, answerWait)
		r, err := s.wallet.Requests().WaitAnswered(actx, c.RequestID)
		cancel()
		if err == nil && r.Answered() {
			res.Dapp = &DappAnswer{Result: r.Result, Error: r.Error, DurationMs: r.DurationMs()}
		}
	}
	if approve && res.Dapp != nil && res.Dapp.Error == nil && c.Request != nil && confirm.IsTransaction(c.Request.Kind) {
		var hash string
		if json.Unmarshal(res.Dapp.Result, &hash) == nil && hash != "" {
			tx, err := m.receipt(ctx, s, hash)
			if err != nil {
				return res, err
			}
			res.Transaction = tx
		}
	}
	// Back to the page that was active, or else the requesting dapp's.
	role, url := before.Role, before.URL
	if role == "" || role == browser.RoleNotification {
		role, url = "", c.dappURL
	}
	if url != "" {
		if _, err := s.wallet.SwitchTab(ctx, role, url); err != nil {
			m.log.Debug("switch back after confirm", "error", err)
		}
	}
	return res, nil
}

// answerPopup clicks the popup's approve (or reject) button until the
// wallet closes the popup: a connect takes two approving clicks.
func (m *Manager) answerPopup(ctx context.Context, s *Session, approve bool, c Confirmation) error {
	for step := 0; step < 3; step++ {
		id := c.Shown.Reject
		if approve {
			id = c.Shown.Approve
		}
		if id == "" {
			return sdk.Errorf(sdk.CodeTargetNotFound, "the wallet's confirmation screen (%s) shows no %s button", c.Shown.Route, map[bool]string{true: "approve", false: "reject"}[approve])
		}
		res, err := m.Click(ctx, discovery.Target{TestID: id}, 30*time.Second)
		if err != nil {
			return err
		}
		if res.Value.PageClosedAfterClick {
			return nil
		}
		// The popup moved on (a connect's second step): read it again.
		next, err := m.confirmation(ctx, s, 5*time.Second)
		if err != nil {
			if isCode(err, sdk.CodeNotificationTimeout) || isCode(err, sdk.CodeNoConfirmation) {
				return nil // it closed after all
			}
			return err
		}
		c = next
	}
	return sdk.Errorf(sdk.CodeClickFailed, "the wallet's popup stayed open after three %s clicks (it shows %s)", map[bool]string{true: "approve", false: "reject"}[approve], c.Shown.Route)
}

// receipt waits for hash's receipt on the session's chain and reads the
// sender's balance change over its block.
func (m *Manager) receipt(ctx context.Context, s *Session, hash string) (*TxOutcome, error) {
	if s.parts.Chain == nil {
		return &TxOutcome{Hash: hash}, nil
	}
	url := s.parts.Chain.RPCURL
	ctx, cancel := context.WithTimeout(ctx, receiptWait)
	defer cancel()
	var rc *struct {
		Status, BlockNumber, GasUsed, EffectiveGasPrice string
		From, To                                        string
		Logs                                            []confirm.ReceiptLog
	}
	for rc == nil {
		if err := jsonrpc.Call(ctx, url, "eth_getTransactionReceipt", []any{hash}, &rc); err != nil {
			return nil, sdk.Errorf(sdk.CodeChainDown, "reading the receipt of %s: %v", hash, err)
		}
		if rc != nil {
			break
		}
		select {
		case <-ctx.Done():
			return nil, sdk.Errorf(sdk.CodeTimeout, "transaction %s was sent but not mined within %s", hash, receiptWait)
		case <-time.After(20 * time.Millisecond):
		}
	}
	num := func(h string) *big.Int {
		v, _ := new(big.Int).SetString(strings.TrimPrefix(h, "0x"), 16)
		if v == nil {
			v = new(big.Int)
		}
		return v
	}
	block, gas, price := num(rc.BlockNumber), num(rc.GasUsed), num(rc.EffectiveGasPrice)
	out := &TxOutcome{Hash: hash, Status: int(num(rc.Status).Int64()), BlockNumber: block.Uint64(), From: rc.From, To: rc.To,
		GasUsed: gas.Uint64(), Fee: confirm.FormatUnits(new(big.Int).Mul(gas, price), 18), Events: confirm.DecodeEvents(rc.Logs)}
	var after, prior string
	if block.Sign() > 0 &&
		jsonrpc.Call(ctx, url, "eth_getBalance", []any{rc.From, rc.BlockNumber}, &after) == nil &&
		jsonrpc.Call(ctx, url, "eth_getBalance", []any{rc.From, fmt.Sprintf("0x%x", new(big.Int).Sub(block, big.NewInt(1)))}, &prior) == nil {
		out.EthChange = confirm.FormatUnits(new(big.Int).Sub(num(after), num(prior)), 18)
	}
	return out, nil
}
