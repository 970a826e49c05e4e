// Package wallet is the wallet's model on top of the Chrome driver
// (host/browser): what its UI shows and how it is read. A Profile names
// the wallet's pages, routes, landmarks and testids (MetaMask is the
// default) and is the built-in sdk.StateSnapshotter, which a StateSnapshot
// plugin replaces; a Wallet is one Chrome with the extension loaded
// (browser.Chrome, embedded) and that model: the extension state
// (mm_get_state), the unlock, the wait for a recognized screen, the
// screens a click names, the in-place reload.
package wallet

import (
	"context"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Wallet is one Chrome with the wallet extension loaded (the embedded
// browser.Chrome: tabs, navigation, screenshots, ...) and the wallet's
// model. Methods are safe for concurrent use.
type Wallet struct {
	*browser.Chrome
	log      hclog.Logger
	profile  *Profile
	snapshot sdk.StateSnapshotter // Options.StateSnapshot

	// The state provider (snapshot or the profile) and what it reads from
	// pages, settled on first use.
	probeOnce sync.Once
	provider  sdk.StateSnapshotter
	probe     sdk.StateProbe
}

// Options configure Launch: Chrome's, and the wallet's model.
type Options struct {
	browser.Options

	// Profile describes the wallet's pages, screens and landmarks. Nil
	// means MetaMask. Its Pages replace Options.Pages.
	Profile *Profile

	// StateSnapshot names screens and reads the wallet's state instead of
	// the profile (a StateSnapshot plugin). Nil means the profile.
	StateSnapshot sdk.StateSnapshotter
}

// Launch starts Chrome with the wallet extension (browser.Launch, with the
// profile's pages) and returns it with the wallet's model.
func Launch(ctx context.Context, o Options) (*Wallet, error) {
	if o.Profile == nil {
		o.Profile = MetaMask()
	}
	o.Pages = o.Profile.Pages
	c, err := browser.Launch(ctx, o.Options)
	if err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Wallet{Chrome: c, log: log.Named("wallet"), profile: o.Profile, snapshot: o.StateSnapshot}, nil
}

// Profile is the wallet profile in use.
func (s *Wallet) Profile() *Profile { return s.profile }

// Diagnose is browser.Chrome.Diagnose with the wallet's last screen, for
// a launch or reload that cannot finish.
func (s *Wallet) Diagnose(ctx context.Context, name string) browser.Diagnosis {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), browser.DiagnoseLimit)
	defer cancel()
	st, err := s.State(ctx)
	d := s.Chrome.Diagnose(ctx, name)
	if err == nil {
		d.LastScreen, d.LastURL = st.CurrentScreen, st.CurrentURL
	}
	return d
}
