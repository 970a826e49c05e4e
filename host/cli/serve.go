package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host"
	"github.com/mmcp-dev/mmcp/host/config"
	"github.com/mmcp-dev/mmcp/host/tools"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/server"
)

// DefaultHTTPAddr is where `mmcp serve --http` listens when no address is
// given: loopback, a free port.
const DefaultHTTPAddr = "127.0.0.1:0"

// HTTPPath is the MCP endpoint path of `mmcp serve --http`.
const HTTPPath = "/mcp"

// SessionHeader names the wallet session an HTTP request acts on (`mmcp
// call --session ID`; "*" for the only running one). Without it, a request
// acts on the wallet session of its owner: the client ClientHeader names,
// else its MCP session (Mcp-Session-Id, protocols before 2026-07-28, which
// have sessions), else the one owner all other requests share.
const SessionHeader = "Mmcp-Session"

// ClientHeader names the client a request comes from (any stable name of
// the client's choosing): each client launches and drives a wallet session
// of its own. A client of a protocol without MCP sessions (2026-07-28)
// sends it to get a session of its own.
const ClientHeader = "Mmcp-Client"

// CLIClient is the ClientHeader of `mmcp call` and `mmcp replay` attached
// to a serve: the sessions they launch are the CLI's own, and each later
// command, a connection of its own, acts on them again (another client's
// session only when it was launched with shared).
const CLIClient = "mmcp-cli"

// requestOwner is the owner of an HTTP request (see SessionHeader).
func requestOwner(r *http.Request) string {
	if c := r.Header.Get(ClientHeader); c != "" {
		return "client:" + c
	}
	if id := r.Header.Get(server.HeaderKeySessionID); id != "" {
		return "mcp-session:" + id
	}
	return ""
}

// listenAddr returns the address to listen on: the default when addr is
// empty, "127.0.0.1:<port>" for a bare port or ":<port>". Any other
// interface must be named (0.0.0.0:<port>, [::]:<port>, an IP).
func listenAddr(addr string) string {
	switch {
	case addr == "":
		return DefaultHTTPAddr
	case !strings.Contains(addr, ":"):
		if _, err := strconv.Atoi(addr); err == nil {
			return "127.0.0.1:" + addr
		}
	case strings.HasPrefix(addr, ":"):
		return "127.0.0.1" + addr
	}
	return addr
}

// HTTP connection timeouts of `mmcp serve --http`: a client must send its
// request headers within httpReadHeaderTimeout of connecting and its body
// within httpReadBodyTimeout of the headers, and a keep-alive connection
// idle for httpIdleTimeout is closed. A refused request (401, 403) closes
// its connection at once.
const (
	httpReadHeaderTimeout = 10 * time.Second
	httpReadBodyTimeout   = 30 * time.Second
	httpIdleTimeout       = 60 * time.Second
)

// newHTTPServer is the http.Server of `mmcp serve --http`, with its
// timeouts.
func newHTTPServer(h http.Handler, log hclog.Logger) *http.Server {
	return &http.Server{
		Handler:           bodyDeadline(h, httpReadBodyTimeout),
		ReadHeaderTimeout: httpReadHeaderTimeout,
		IdleTimeout:       httpIdleTimeout,
		ErrorLog:          log.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}
}

// bodyDeadline gives each request d to send its body: a body still
// arriving after that fails to read (the handler answers 400) and its
// connection is closed. The deadline is lifted once the body is read, so a
// long call (a launch) is not cut off: http.Server's ReadTimeout would
// cancel it.
func bodyDeadline(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body != nil && r.Body != http.NoBody && rc.SetReadDeadline(time.Now().Add(d)) == nil {
			r.Body = &liftOnEOF{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
		next.ServeHTTP(w, r)
	})
}

// liftOnEOF calls lift once its body is read to the end.
type liftOnEOF struct {
	io.ReadCloser
	lift func()
	done bool
}

func (b *liftOnEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.lift()
	}
	return n, err
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

func init() {
	RegisterCommand(Command{
		Name:  "serve",
		Usage: "[--http [addr]]",
		Short: "serve MCP over stdio, or with --http over streamable HTTP so several clients share the host",
		Long: `--http listens on addr (default 127.0.0.1, a free port) and writes
<repo>/.mmcp/serve.json {url, token, pid}; each client gets a wallet
session of its own.`,
		RawArgs: true,
		Func:    runServeCmd,
	})
}

// runServeCmd is `mmcp serve [--http [addr]]`: over stdio unless --http.
func runServeCmd(ctx context.Context, in Input) int {
	cfg, args, stdin, stdout, stderr := in.Config, in.Args, in.Stdin, in.Stdout, in.Stderr
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
		return runServe(ctx, cfg, stdin, stdout, stderr)
	}
	return runServeHTTP(ctx, cfg, addr, stdout, stderr)
}

// runServeHTTP is `mmcp serve --http [addr]`.
func runServeHTTP(ctx context.Context, cfg config.Config, addr string, stdout, stderr io.Writer) int {
	h, err := host.New(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 1
	}
	defer h.Close()
	statePath := ServeStatePath(h.Config().Repo)
	if cur, ok := ReadServeState(h.Config().Repo); ok {
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
	h.Sessions().KeepStandby()

	mcpHTTP := server.NewStreamableHTTPServer(h.MCPServer(),
		server.WithEndpointPath(HTTPPath),
		server.WithStreamableHTTPLogger(hclogSlog(h.Log().Named("http"))),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			ctx = tools.WithOwner(ctx, requestOwner(r))
			actx, err := h.Attach(ctx, r.Header.Get(SessionHeader))
			if err != nil {
				return tools.WithOwnerErr(ctx, err)
			}
			return actx
		}),
	)
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, tools.LimitHTTP(mcpHTTP, h.Config().MaxRequestBytes))
	srv := newHTTPServer(newHTTPGuard(mux, tcp, token, h.Log().Named("http")), h.Log().Named("http"))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if !tcp.IP.IsLoopback() {
		h.Log().Warn("serving on a non-loopback address: anyone who can reach it and has the token can drive the wallet", "addr", tcp.String())
		fmt.Fprintf(stderr, "mmcp: WARNING: listening on %s, not loopback: anyone who can reach it and has the token can drive the wallet\n", tcp.String())
	}
	h.Log().Info("serving MCP over HTTP", "url", st.URL, "workspace", h.Config().Repo, "state", statePath)
	fmt.Fprintf(stderr, "mmcp: serving MCP over HTTP at %s (token in %s)\n", st.URL, statePath)
	fmt.Fprintln(stdout, st.URL)

	code := 0
	select {
	case <-ctx.Done():
		h.Log().Info("shutting down", "reason", "signal")
	case err := <-errc:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			h.Log().Error("http server stopped", "error", err)
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
