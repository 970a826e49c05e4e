package wallet

import (
	"context"
	"encoding/json"
	"math/big"
	"regexp"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// metaMaskAppState reads the wallet's state the way MetaMask's own
// end-to-end tests do (test/e2e: window.stateHooks.getCleanAppState(), the
// UI's Redux state, installed by ui/index.js), in the page's main world.
// LavaMoat scuttles most main-world globals in test builds but keeps
// window and stateHooks, so the script touches no other global: it only
// reads properties and builds literals. It returns a small summary (the
// layouts of MetaMask 11 and 12 both), or null before the UI has started.
const metaMaskAppState = `(async () => {
  const hooks = window.stateHooks;
  if (!hooks || typeof hooks.getCleanAppState !== 'function') return null;
  const s = await hooks.getCleanAppState();
  const m = (s && s.metamask) || null;
  if (!m) return null;
  let address = null;
  const ia = m.internalAccounts;
  if (ia && ia.accounts && ia.selectedAccount && ia.accounts[ia.selectedAccount]) address = ia.accounts[ia.selectedAccount].address || null;
  if (!address && m.selectedAddress) address = m.selectedAddress;
  let chainId = null, networkName = null, ticker = null;
  const pc = m.providerConfig;
  if (pc && pc.chainId) {
    chainId = pc.chainId; networkName = pc.nickname || (pc.type !== 'rpc' ? pc.type : null) || null; ticker = pc.ticker || null;
  }
  const byChain = m.networkConfigurationsByChainId;
  if (!chainId && byChain && m.selectedNetworkClientId) {
    for (const id in byChain) {
      const c = byChain[id];
      for (const ep of (c.rpcEndpoints || [])) {
        if (ep.networkClientId === m.selectedNetworkClientId) { chainId = c.chainId; networkName = c.name || null; ticker = c.nativeCurrency || null; }
      }
    }
  }
  let balance = null;
  const pick = (accounts) => {
    if (!accounts || !address) return null;
    const want = address.toLowerCase();
    for (const k in accounts) if (k.toLowerCase() === want && accounts[k]) return accounts[k].balance || null;
    return null;
  };
  balance = pick(m.accounts);
  if (!balance && chainId && m.accountsByChainId) balance = pick(m.accountsByChainId[chainId]);
  const approvals = [];
  for (const id in (m.pendingApprovals || {})) {
    const a = m.pendingApprovals[id];
    approvals.push({ id, type: (a && a.type) || '', origin: (a && a.origin) || '' });
  }
  return { isUnlocked: m.isUnlocked === true, address, chainId: chainId === null ? null : '' + chainId, networkName, ticker, balance, approvals };
})()`

// appState is what metaMaskAppState returns.
type appState struct {
	IsUnlocked  bool    `json:"isUnlocked"`
	Address     *string `json:"address"`
	ChainID     *string `json:"chainId"`
	NetworkName *string `json:"networkName"`
	Ticker      *string `json:"ticker"`
	// Balance is hex wei.
	Balance   *string `json:"balance"`
	Approvals []struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		Origin string `json:"origin"`
	} `json:"approvals"`
}

// parseAppState decodes the script's value; nil when there is none.
func parseAppState(raw json.RawMessage) *appState {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var a appState
	if json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return &a
}

var fullAddress = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// State implements sdk.StateSnapshotter: the app state when the page's UI
// has started, else the DOM (the network name and balance as shown, an
// account address only where the page shows it in full, no chain id).
func (p *Profile) State(_ context.Context, req sdk.StateRequest) (sdk.StateResponse, error) {
	return sdk.StateResponse{Status: p.status(req.Page)}, nil
}

func (p *Profile) status(page sdk.PageSnapshot) sdk.WalletStatus {
	var ws sdk.WalletStatus
	app := parseAppState(page.AppState)
	screen := p.screen(page, app)
	if m := page.Elements["errorMessage"]; screen == "error" && m.Text != "" {
		ws.ErrorMessage = &m.Text
	}
	if app == nil {
		unlocked := p.unlockedScreen(screen) || (screen != "unlock" && page.Elements[p.HomeLandmark].Present)
		ws.IsUnlocked = &unlocked
		ws.NetworkName = elementText(page, "network")
		ws.Balance = elementText(page, "balance")
		if a := elementText(page, "account"); a != nil && fullAddress.MatchString(*a) {
			ws.AccountAddress = a
		}
		return ws
	}
	ws.IsUnlocked = &app.IsUnlocked
	ws.AccountAddress = nonEmpty(app.Address)
	ws.NetworkName = nonEmpty(app.NetworkName)
	if app.ChainID != nil {
		if v, ok := parseChainID(*app.ChainID); ok {
			ws.ChainID = &v
		}
	}
	if app.Balance != nil {
		if wei, ok := new(big.Int).SetString(strings.TrimPrefix(*app.Balance, "0x"), 16); ok {
			ticker := "ETH"
			if app.Ticker != nil && *app.Ticker != "" {
				ticker = *app.Ticker
			}
			b := FormatEther(wei) + " " + ticker
			ws.Balance = &b
		}
	}
	return ws
}

func elementText(page sdk.PageSnapshot, name string) *string {
	e := page.Elements[name]
	if !e.Present {
		return nil
	}
	t := strings.Join(strings.Fields(e.Text), " ")
	if t == "" {
		return nil
	}
	return &t
}

func nonEmpty(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}

// FormatEther formats wei as ether with at most 4 decimals, trailing zeros
// trimmed ("25", "0.1234").
func FormatEther(wei *big.Int) string {
	r := new(big.Rat).SetFrac(wei, new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
	s := r.FloatString(4)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
