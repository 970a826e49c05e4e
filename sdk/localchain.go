package sdk

import (
	"bytes"
	"strconv"
)

// LocalChainAt points a wallet state's local chain at a session's chain
// port: fixtures (MetaMask's builders, preset files, a fixture written
// before any session ran) name the local chain http://localhost:8545 (or
// 127.0.0.1), while a session's Anvil may listen elsewhere (8545 was busy,
// or a port was asked for). Left at 8545, the wallet would talk to
// whatever listens there instead of its own chain. A state already on
// port, or port 0 or DefaultAnvilPort, comes back as it is.
func LocalChainAt(st WalletState, port int) WalletState {
	if port == 0 || port == DefaultAnvilPort {
		return st
	}
	for _, host := range []string{"localhost", "127.0.0.1"} {
		from := "://" + host + ":" + strconv.Itoa(DefaultAnvilPort)
		to := "://" + host + ":" + strconv.Itoa(port)
		for _, end := range []string{`"`, "/"} { // the URL ends, or its path begins
			st = bytes.ReplaceAll(st, []byte(from+end), []byte(to+end))
		}
	}
	return st
}
