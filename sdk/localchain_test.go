package sdk

import "testing"

// TestLocalChainAt: the local chain's URLs (localhost and 127.0.0.1, with
// or without a path) move to the session's port; other ports, a longer
// port that starts with 8545, and the default port stay.
func TestLocalChainAt(t *testing.T) {
	in := WalletState(`{"data":{"NetworkController":{"providerConfig":{"rpcUrl":"http://localhost:8545"},` +
		`"networkConfigurations":{"a":{"rpcUrl":"http://127.0.0.1:8545/"},"b":{"rpcUrl":"http://localhost:85450"},"c":{"rpcUrl":"http://localhost:8546"}}}}}`)
	want := `{"data":{"NetworkController":{"providerConfig":{"rpcUrl":"http://localhost:39001"},` +
		`"networkConfigurations":{"a":{"rpcUrl":"http://127.0.0.1:39001/"},"b":{"rpcUrl":"http://localhost:85450"},"c":{"rpcUrl":"http://localhost:8546"}}}}}`
	if got := string(LocalChainAt(in, 39001)); got != want {
		t.Errorf("LocalChainAt:\n got %s\nwant %s", got, want)
	}
	for _, port := range []int{0, DefaultAnvilPort} {
		if got := string(LocalChainAt(in, port)); got != string(in) {
			t.Errorf("port %d changed the state: %s", port, got)
		}
	}
}
