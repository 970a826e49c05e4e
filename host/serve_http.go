package host

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/server"
)

// DefaultHTTPAddr is where `mmcp serve --http` listens when no address is
// given: loopback, a free port.
const DefaultHTTPAddr = "127.0.0.1:0"

// HTTPPath is the MCP endpoint path of `mmcp serve --http`.
const HTTPPath = "/mcp"

// ServeState is the content of <repo>/.mmcp/serve.json: how a client of the
// same workspace reaches a running `mmcp serve --http`.
type ServeState struct {
	// URL is the streamable HTTP MCP endpoint.
	URL string `json:"url"`
	// Token is the bearer token every request must carry.
	Token string `json:"token"`
	// PID is the serving process.
	PID int `json:"pid"`
}

// ServeStatePath is where `mmcp serve --http` writes its ServeState for
// the workspace repo.
func ServeStatePath(repo string) string {
	return filepath.Join(repo, ".mmcp", "serve.json")
}

// ReadServeState returns the ServeState of the workspace repo when a serve
// is running there: the file exists, parses and names a live process.
// A missing, unreadable or stale file gives (nil, false).
func ReadServeState(repo string) (*ServeState, bool) {
	b, err := os.ReadFile(ServeStatePath(repo))
	if err != nil {
		return nil, false
	}
	var st ServeState
	if err := json.Unmarshal(b, &st); err != nil || st.URL == "" || st.PID <= 0 {
		return nil, false
	}
	if !pidAlive(st.PID) {
		return nil, false
	}
	return &st, true
}

// pidAlive reports whether a process with this pid exists (best effort:
// pids are reused).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		return true // FindProcess opened it
	}
	err = p.Signal(syscall.Signal(0))
	if err == nil || errors.Is(err, syscall.EPERM) {
		if b, rerr := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); rerr == nil && strings.Contains(string(b), ") Z ") {
			return false // a zombie: exited, not yet reaped
		}
		return true
	}
	return false
}

// writeServeState writes st to path exclusively (mode 0600, directory
// 0700): it fails with os.ErrExist when the file is already there. The
// content is written to a temporary file first and linked into place, so
// a reader never sees a half-written file.
func writeServeState(path string, st ServeState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("serve state: %w", err)
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".serve-*.json")
	if err != nil {
		return fmt.Errorf("serve state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("serve state: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("serve state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("serve state: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("serve state %s: %w", path, os.ErrExist)
		}
		return fmt.Errorf("serve state: %w", err)
	}
	return nil
}

// removeServeState removes path if it still holds st (another serve may
// have replaced a file it thought stale).
func removeServeState(path string, st ServeState) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var cur ServeState
	if json.Unmarshal(b, &cur) == nil && cur.PID == st.PID && cur.Token == st.Token {
		_ = os.Remove(path)
	}
}

// claimServeState writes st to path, replacing a stale file (one whose
// process is gone). It fails when a live serve owns the file; the error
// then names its URL.
func claimServeState(path string, st ServeState) error {
	for attempt := 0; attempt < 3; attempt++ {
		err := writeServeState(path, st)
		if !errors.Is(err, os.ErrExist) {
			return err
		}
		if cur, ok := ReadServeState(filepath.Dir(filepath.Dir(path))); ok {
			return fmt.Errorf("mmcp serve is already running for this workspace at %s (pid %d)", cur.URL, cur.PID)
		}
		_ = os.Remove(path) // stale: its process is gone
	}
	return fmt.Errorf("serve state %s: could not claim it", path)
}

// newToken returns 32 random bytes, hex encoded.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

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

// ServeHTTP checks Host, Origin and the token, then serves MCP.
func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		g.log.Warn("refused request: bad Host header", "host", r.Host, "remote", r.RemoteAddr)
		http.Error(w, "forbidden: Host header does not name this server", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
		g.log.Warn("refused request: foreign Origin", "origin", origin, "remote", r.RemoteAddr)
		http.Error(w, "forbidden: Origin is not loopback", http.StatusForbidden)
		return
	}
	auth := r.Header.Get("Authorization")
	const bearer = "Bearer "
	if len(auth) <= len(bearer) || !strings.EqualFold(auth[:len(bearer)], bearer) ||
		subtle.ConstantTimeCompare([]byte(auth[len(bearer):]), []byte(g.token)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mmcp"`)
		http.Error(w, "unauthorized: bearer token required (see <repo>/.mmcp/serve.json)", http.StatusUnauthorized)
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

// listenAddr returns the address to listen on: the default when addr is
// empty, "127.0.0.1:<port>" for a bare port.
func listenAddr(addr string) string {
	switch {
	case addr == "":
		return DefaultHTTPAddr
	case !strings.Contains(addr, ":"):
		if _, err := strconv.Atoi(addr); err == nil {
			return "127.0.0.1:" + addr
		}
	}
	return addr
}

// endpointURL is the URL clients use for a server listening on a.
func endpointURL(a *net.TCPAddr) string {
	ip := a.IP
	if ip.IsUnspecified() {
		if ip.To4() != nil {
			ip = net.IPv4(127, 0, 0, 1)
		} else {
			ip = net.IPv6loopback
		}
	}
	return "http://" + net.JoinHostPort(ip.String(), strconv.Itoa(a.Port)) + HTTPPath
}

// runServeCmd is `mmcp serve [--http [addr]]`: over stdio unless --http.
func runServeCmd(ctx context.Context, cfg Config, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	httpMode, addr := false, ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--http" || a == "-http":
			httpMode = true
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				addr = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--http="):
			httpMode, addr = true, strings.TrimPrefix(a, "--http=")
		default:
			fmt.Fprintf(stderr, "mmcp serve: unknown argument %q (usage: mmcp [flags] serve [--http [addr]])\n", a)
			return 2
		}
	}
	if !httpMode {
		return runServe(ctx, cfg, nil, stdin, stdout, stderr)
	}
	return runServeHTTP(ctx, cfg, addr, stdout, stderr)
}

// runServeHTTP is `mmcp serve --http [addr]`.
func runServeHTTP(ctx context.Context, cfg Config, addr string, stdout, stderr io.Writer) int {
	h, err := New(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	defer h.Close()
	statePath := ServeStatePath(h.cfg.Repo)
	if cur, ok := ReadServeState(h.cfg.Repo); ok {
		fmt.Fprintf(stderr, "mmcp: mmcp serve is already running for this workspace at %s (pid %d)\n", cur.URL, cur.PID)
		return 1
	}
	token, err := newToken()
	if err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	ln, err := net.Listen("tcp", listenAddr(addr))
	if err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	tcp := ln.Addr().(*net.TCPAddr)
	st := ServeState{URL: endpointURL(tcp), Token: token, PID: os.Getpid()}
	if err := claimServeState(statePath, st); err != nil {
		_ = ln.Close()
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	defer removeServeState(statePath, st)
	if err := h.Start(ctx); err != nil {
		_ = ln.Close()
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}

	mcpHTTP := server.NewStreamableHTTPServer(h.MCPServer(),
		server.WithEndpointPath(HTTPPath),
		server.WithStreamableHTTPLogger(hclogSlog(h.log.Named("http"))),
	)
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, mcpHTTP)
	srv := &http.Server{
		Handler:           newHTTPGuard(mux, tcp, token, h.log.Named("http")),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          hclogStd(h.log.Named("http")),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if !tcp.IP.IsLoopback() {
		h.log.Warn("serving on a non-loopback address: anyone who can reach it and has the token can drive the wallet", "addr", tcp.String())
	}
	h.log.Info("serving MCP over HTTP", "url", st.URL, "workspace", h.cfg.Repo, "state", statePath)
	fmt.Fprintf(stderr, "mmcp: serving MCP over HTTP at %s (token in %s)\n", st.URL, statePath)
	fmt.Fprintln(stdout, st.URL)

	code := 0
	select {
	case <-ctx.Done():
		h.log.Info("shutting down", "reason", "signal")
	case err := <-errc:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			h.log.Error("http server stopped", "error", err)
			code = 1
		}
	}
	// No new clients: the state file goes first, then the listener.
	removeServeState(statePath, st)
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = mcpHTTP.Shutdown(sctx) // ends the listening streams
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	return code
}

// hclogSlog adapts the host logger for libraries that want a *slog.Logger.
func hclogSlog(l hclog.Logger) *slog.Logger {
	w := l.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
