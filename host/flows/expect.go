package flows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/internal/jsonrpc"
	"github.com/mmcp-dev/mmcp/sdk"
)

// DefaultExpectTimeout is how long a flow's expectations may take to hold
// after its last step (expect.timeoutMs overrides it).
const DefaultExpectTimeout = 10 * time.Second

// Expect is what must hold after a flow's last step.
type Expect struct {
	TimeoutMs        *int         `json:"timeoutMs,omitempty"`
	State            *StateExpect `json:"state,omitempty"`
	Present          []Element    `json:"present,omitempty"`
	Absent           []Element    `json:"absent,omitempty"`
	TransactionMined *TxExpect    `json:"transactionMined,omitempty"`
	// Transactions are the transactions the wallet's account sent after
	// the launch, in order (transactions.go).
	Transactions []TxSpec `json:"transactions,omitempty"`
	// Visual and Structure are mm_visual_check and mm_structure_check
	// calls (their arguments) that must not answer changed.
	Visual    []map[string]any `json:"visual,omitempty"`
	Structure []map[string]any `json:"structure,omitempty"`
}

// StateExpect lists fields of mm_get_state's state that must be equal.
type StateExpect struct {
	Screen   string `json:"screen,omitempty"`
	Unlocked *bool  `json:"unlocked,omitempty"`
	Account  string `json:"account,omitempty"`
	Balance  string `json:"balance,omitempty"`
	ChainID  *int64 `json:"chainId,omitempty"`
	Network  string `json:"network,omitempty"`
}

// Element is a testid element, an element by CSS selector, or a text on
// the page.
type Element struct {
	TestID   string `json:"testId,omitempty"`
	Selector string `json:"selector,omitempty"`
	Text     string `json:"text,omitempty"`
}

func (e Element) String() string {
	switch {
	case e.Selector != "" && e.Text != "":
		return fmt.Sprintf("selector %q with text %q", e.Selector, e.Text)
	case e.Selector != "":
		return fmt.Sprintf("selector %q", e.Selector)
	case e.TestID != "" && e.Text != "":
		return fmt.Sprintf("testId %q with text %q", e.TestID, e.Text)
	case e.TestID != "":
		return fmt.Sprintf("testId %q", e.TestID)
	}
	return fmt.Sprintf("text %q", e.Text)
}

// TxExpect is a transaction that must be mined with status 0x1.
type TxExpect struct {
	Hash           string `json:"hash,omitempty"`
	HashFromTestID string `json:"hashFromTestId,omitempty"`
}

// check is one expectation: its name in failures, and a test on a view.
// A new kind of expectation (a visual check, say) is one field of Expect
// and one entry of checks.
type check struct {
	name string
	fn   func(ctx context.Context, v *view) error
}

func (e *Expect) checks() []check {
	if e == nil {
		return nil
	}
	var cs []check
	if e.State != nil {
		cs = append(cs, check{"state", e.State.check})
	}
	for _, el := range e.Present {
		cs = append(cs, check{"present " + el.String(), func(ctx context.Context, v *view) error { return v.want(ctx, el, true) }})
	}
	for _, el := range e.Absent {
		cs = append(cs, check{"absent " + el.String(), func(ctx context.Context, v *view) error { return v.want(ctx, el, false) }})
	}
	if e.TransactionMined != nil {
		cs = append(cs, check{"transactionMined", e.TransactionMined.check})
	}
	if len(e.Transactions) > 0 {
		cs = append(cs, check{"transactions", func(ctx context.Context, v *view) error { return v.checkTransactions(ctx, e.Transactions) }})
	}
	for _, a := range e.Visual {
		cs = append(cs, check{fmt.Sprintf("visual %v", a["name"]), func(ctx context.Context, v *view) error { return v.check(ctx, "visual", ToolVisualCheck, a) }})
	}
	for _, a := range e.Structure {
		cs = append(cs, check{fmt.Sprintf("structure %v", a["name"]), func(ctx context.Context, v *view) error { return v.check(ctx, "structure", ToolStructureCheck, a) }})
	}
	return cs
}

func (e *Expect) timeout() time.Duration {
	if e == nil || e.TimeoutMs == nil {
		return DefaultExpectTimeout
	}
	return time.Duration(*e.TimeoutMs) * time.Millisecond
}

// verify polls the expectations until all hold or the timeout passes, and
// returns the ones that did not hold the last time.
func (e *Expect) verify(ctx context.Context, c Caller) error { return e.verifySince(ctx, c, txStart{}) }

// verifySince is verify with where the flow's transactions start: the
// transactions checked are those since.
func (e *Expect) verifySince(ctx context.Context, c Caller, since txStart) error {
	cs := e.checks()
	if len(cs) == 0 {
		return nil
	}
	deadline := time.Now().Add(e.timeout())
	for {
		v := &view{c: c, since: since}
		var failed []string
		for _, ch := range cs {
			if err := ch.fn(ctx, v); err != nil {
				failed = append(failed, ch.name+": "+err.Error())
			}
		}
		if len(failed) == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return &ExpectError{Failed: failed, Checks: v.outcomes}
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// ExpectError lists the expectations that did not hold, and the last
// outcomes of the visual and structure checks.
type ExpectError struct {
	Failed []string
	Checks []CheckOutcome
}

func (e *ExpectError) Error() string {
	return "expectations not met: " + strings.Join(e.Failed, "; ")
}

// view is one look at the session: each tool's answer is fetched once,
// when a check first needs it.
type view struct {
	c Caller
	// since is where the flow's transactions start.
	since   txStart
	fetched map[string]fetched
	// outcomes are the visual and structure checks' answers.
	outcomes []CheckOutcome
}

type fetched struct {
	raw json.RawMessage
	err error
}

type walletState struct {
	CurrentScreen  string  `json:"currentScreen"`
	IsUnlocked     bool    `json:"isUnlocked"`
	AccountAddress *string `json:"accountAddress"`
	Balance        *string `json:"balance"`
	ChainID        *int64  `json:"chainId"`
	NetworkName    *string `json:"networkName"`
}

type testIDItem struct {
	TestID string `json:"testId"`
	Text   string `json:"text"`
}

type a11yNode struct {
	Ref  string `json:"ref"`
	Role string `json:"role"`
	Name string `json:"name"`
}

func (v *view) load(ctx context.Context, tool string, args map[string]any, into any) error {
	if v.fetched == nil {
		v.fetched = map[string]fetched{}
	}
	b, _ := json.Marshal(args)
	key := tool + " " + string(b)
	f, ok := v.fetched[key]
	if !ok {
		f.raw, f.err = v.c.Call(ctx, tool, args)
		v.fetched[key] = f
	}
	if f.err != nil {
		return f.err
	}
	return json.Unmarshal(f.raw, into)
}

func (v *view) getState(ctx context.Context) (*walletState, error) {
	var out struct{ State walletState }
	if err := v.load(ctx, ToolGetState, map[string]any{}, &out); err != nil {
		return nil, err
	}
	return &out.State, nil
}

func (v *view) items(ctx context.Context) ([]testIDItem, error) {
	var out struct{ Items []testIDItem }
	if err := v.load(ctx, ToolListTestIDs, map[string]any{"limit": 500}, &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

func (v *view) a11y(ctx context.Context) ([]a11yNode, error) {
	var out struct{ Nodes []a11yNode }
	if err := v.load(ctx, ToolSnapshot, map[string]any{}, &out); err != nil {
		return nil, err
	}
	return out.Nodes, nil
}

// selectorText is the visible text of the element selector names, and
// whether one is there (visible, with text).
func (v *view) selectorText(ctx context.Context, selector string) (string, bool, error) {
	var out struct{ Text string }
	err := v.load(ctx, ToolGetText, map[string]any{"selector": selector, "timeoutMs": 0}, &out)
	var se *sdk.Error
	if errors.As(err, &se) && se.Code == sdk.CodeTargetNotFound {
		return "", false, nil
	}
	return out.Text, err == nil, err
}

// want checks that el is present (or absent).
func (v *view) want(ctx context.Context, el Element, present bool) error {
	if el.Selector != "" {
		text, there, err := v.selectorText(ctx, el.Selector)
		if err != nil {
			return err
		}
		found := there && strings.Contains(text, el.Text)
		switch {
		case present && !found && there:
			return fmt.Errorf("its text is %q", text)
		case present && !found:
			return errors.New("not on the page (or not rendered)")
		case !present && found:
			return fmt.Errorf("on the page, its text %q", text)
		}
		return nil
	}
	items, err := v.items(ctx)
	if err != nil {
		return err
	}
	found := false
	for _, it := range items {
		if (el.TestID == "" || it.TestID == el.TestID) && strings.Contains(it.Text, el.Text) {
			found = true
			break
		}
	}
	if !found && el.TestID == "" {
		nodes, err := v.a11y(ctx)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			if strings.Contains(n.Name, el.Text) {
				found = true
				break
			}
		}
	}
	switch {
	case present && !found:
		if el.TestID != "" {
			for _, it := range items {
				if it.TestID == el.TestID {
					return fmt.Errorf("its text is %q", it.Text)
				}
			}
		}
		return errors.New("not on the page")
	case !present && found:
		return errors.New("on the page")
	}
	return nil
}

func (s *StateExpect) check(ctx context.Context, v *view) error {
	st, err := v.getState(ctx)
	if err != nil {
		return err
	}
	var diffs []string
	diff := func(field string, want, got any) {
		diffs = append(diffs, fmt.Sprintf("%s is %v, want %v", field, got, want))
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if s.Screen != "" && st.CurrentScreen != s.Screen {
		diff("screen", s.Screen, st.CurrentScreen)
	}
	if s.Unlocked != nil && st.IsUnlocked != *s.Unlocked {
		diff("unlocked", *s.Unlocked, st.IsUnlocked)
	}
	if s.Account != "" && !strings.EqualFold(str(st.AccountAddress), s.Account) {
		diff("account", s.Account, str(st.AccountAddress))
	}
	if s.Balance != "" && str(st.Balance) != s.Balance {
		diff("balance", s.Balance, str(st.Balance))
	}
	if s.ChainID != nil && (st.ChainID == nil || *st.ChainID != *s.ChainID) {
		got := "none"
		if st.ChainID != nil {
			got = fmt.Sprint(*st.ChainID)
		}
		diff("chainId", *s.ChainID, got)
	}
	if s.Network != "" && str(st.NetworkName) != s.Network {
		diff("network", s.Network, str(st.NetworkName))
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, ", "))
	}
	return nil
}

func (t *TxExpect) check(ctx context.Context, v *view) error {
	hash := t.Hash
	if t.HashFromTestID != "" {
		items, err := v.items(ctx)
		if err != nil {
			return err
		}
		for _, it := range items {
			if it.TestID == t.HashFromTestID {
				hash = strings.TrimSpace(it.Text)
			}
		}
		if !strings.HasPrefix(hash, "0x") {
			return fmt.Errorf("testId %q holds %q, not a transaction hash", t.HashFromTestID, hash)
		}
	}
	var chain struct {
		RPCURL string `json:"rpcUrl"`
	}
	if err := v.load(ctx, ToolChainStatus, map[string]any{}, &chain); err != nil {
		return err
	}
	var receipt *struct {
		Status string `json:"status"`
	}
	if err := jsonrpc.Call(ctx, chain.RPCURL, "eth_getTransactionReceipt", []any{hash}, &receipt); err != nil {
		return err
	}
	switch {
	case receipt == nil:
		return fmt.Errorf("transaction %s has no receipt (not mined)", hash)
	case receipt.Status != "0x1":
		return fmt.Errorf("transaction %s mined with status %s (reverted)", hash, receipt.Status)
	}
	return nil
}
