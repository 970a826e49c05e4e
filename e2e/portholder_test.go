package e2e

import (
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
)

// Default ports of a dapp developer's machine: their own Anvil on 8545
// and a MetaMask fixture server on 12345. TestMain holds both (on
// 127.0.0.1 and [::1]) for the whole run when they are free, so the suite
// runs as it would beside them: no launch may count on having them.
const (
	heldAnvilPort   = 8545
	heldFixturePort = 12345
)

// foreignFixture is the stand-in for someone else's fixture server on
// 12345: it counts the requests it gets and answers 404. held says
// whether this process holds 127.0.0.1:12345 (false: another process
// does, and the count sees nothing).
var foreignFixture struct {
	held     bool
	requests atomic.Int64
}

// holdDefaultPorts listens on the default ports where they are free and
// returns a func that releases them.
func holdDefaultPorts() (release func()) {
	var servers []*http.Server
	serve := func(port int, h http.Handler) bool {
		held := false
		for _, host := range []string{"127.0.0.1", "::1"} {
			ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
			if err != nil {
				continue // taken already, or no IPv6 loopback
			}
			srv := &http.Server{Handler: h}
			servers = append(servers, srv)
			go srv.Serve(ln)
			held = held || host == "127.0.0.1"
		}
		return held
	}
	serve(heldAnvilPort, http.NotFoundHandler())
	foreignFixture.held = serve(heldFixturePort, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignFixture.requests.Add(1)
		http.NotFound(w, r)
	}))
	return func() {
		for _, s := range servers {
			_ = s.Close()
		}
	}
}
