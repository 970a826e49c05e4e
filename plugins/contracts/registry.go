package contracts

import (
	"sync"

	"github.com/mmcp-dev/mmcp/sdk"
)

// registry is the session's list of deployments, oldest first.
type registry struct {
	mu      sync.Mutex
	entries []entry
}

// entry is one deployment and the chain it is on.
type entry struct {
	chain string
	sdk.Deployment
}

func (r *registry) add(chain string, d sdk.Deployment) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, entry{chain: chain, Deployment: d})
}

// list returns a copy of the deployments.
func (r *registry) list() []sdk.Deployment {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]sdk.Deployment, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.Deployment
	}
	return out
}

// latest returns the newest deployment of name on chain.
func (r *registry) latest(chain, name string) (sdk.Deployment, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.entries) - 1; i >= 0; i-- {
		if e := r.entries[i]; e.chain == chain && e.ContractName == name {
			return e.Deployment, true
		}
	}
	return sdk.Deployment{}, false
}

func (r *registry) clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = nil
}
