package cli

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// httpGuard is the access control of `mmcp serve --http`, in front of the
// MCP handler: the Host header must name this server (DNS rebinding), an
// Origin header must be loopback (web pages), and the bearer token must be
// present (everything else).
type httpGuard struct {
	next  http.Handler
	token string
	port  string
	hosts map[string]bool // allowed Host header host parts (lower case)
	log   hclog.Logger
}

// newHTTPGuard guards next for a server listening on addr.
func newHTTPGuard(next http.Handler, addr *net.TCPAddr, token string, log hclog.Logger) *httpGuard {
	g := &httpGuard{next: next, token: token, port: strconv.Itoa(addr.Port), log: log,
		hosts: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}}
	if addr.IP.IsUnspecified() {
		// Listening on every interface: the machine's own IP literals are
		// valid Host values (an IP literal cannot be rebound).
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					g.hosts[n.IP.String()] = true
				}
			}
		}
	} else {
		g.hosts[addr.IP.String()] = true
	}
	return g
}

// ServeHTTP checks Host, Origin and the token, then serves MCP. A refused
// request's connection is closed: an unauthenticated client keeps none
// open.
func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	refuse := func(msg string, code int) {
		w.Header().Set("Connection", "close")
		http.Error(w, msg, code)
	}
	if !g.hostAllowed(r.Host) {
		g.log.Warn("refused request: bad Host header", "host", r.Host, "remote", r.RemoteAddr)
		refuse("forbidden: Host header does not name this server", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
		g.log.Warn("refused request: foreign Origin", "origin", origin, "remote", r.RemoteAddr)
		refuse("forbidden: Origin is not loopback", http.StatusForbidden)
		return
	}
	auth := r.Header.Get("Authorization")
	const bearer = "Bearer "
	if len(auth) <= len(bearer) || !strings.EqualFold(auth[:len(bearer)], bearer) ||
		subtle.ConstantTimeCompare([]byte(auth[len(bearer):]), []byte(g.token)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mmcp"`)
		refuse("unauthorized: bearer token required (see <repo>/.mmcp/serve.json)", http.StatusUnauthorized)
		return
	}
	g.next.ServeHTTP(w, r)
}

// hostAllowed reports whether the Host header names this server: an
// allowed host with the listening port.
func (g *httpGuard) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port != g.port {
		return false
	}
	return g.hosts[strings.ToLower(host)]
}

// loopbackOrigin reports whether an Origin header is a loopback web origin
// (http or https; localhost, 127.0.0.1 or [::1], any port).
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}
