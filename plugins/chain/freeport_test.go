package chain

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// TestFreePortRunsChainsSideBySide: two sessions' chains start at once,
// each on its own port, even when the configured port is busy.
func TestFreePortRunsChainsSideBySide(t *testing.T) {
	t.Parallel()
	busy := testutil.BusyPort(t)
	settings := func() map[string]any { return map[string]any{"port": busy} }
	plugins := []*Plugin{}
	for range 2 {
		p, _ := newPlugin(t, settings())
		plugins = append(plugins, p)
	}
	ctx := context.Background()
	statuses := make([]sdk.ChainStatus, len(plugins))
	errs := make([]error, len(plugins))
	var wg sync.WaitGroup
	for i, p := range plugins {
		wg.Go(func() { statuses[i], errs[i] = p.start(ctx, sdk.ChainOptions{FreePort: true}) })
	}
	wg.Wait()
	for i, st := range statuses {
		if errs[i] != nil {
			t.Fatalf("chain %d: %v", i, errs[i])
		}
		if st.Port == 0 || st.Port == busy || st.RPCURL != fmt.Sprintf("http://127.0.0.1:%d", st.Port) {
			t.Fatalf("chain %d status = %+v", i, st)
		}
		c, err := ethclient.Dial(st.RPCURL)
		if err != nil {
			t.Fatal(err)
		}
		id, err := c.ChainID(ctx)
		c.Close()
		if err != nil || id.Int64() != 1337 {
			t.Fatalf("chain %d at %s: chain id %v, %v", i, st.RPCURL, id, err)
		}
	}
	if statuses[0].Port == statuses[1].Port {
		t.Fatalf("both chains on port %d", statuses[0].Port)
	}
	if st, err := chainStatus(ctx, plugins[0]); err != nil || st.Port != statuses[0].Port {
		t.Fatalf("Status = %+v, %v; want the free port %d", st, err, statuses[0].Port)
	}
}
