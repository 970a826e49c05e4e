package mockserver

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// proxy is the forward proxy of one session: plain HTTP requests in
// absolute form, and HTTPS through CONNECT, decrypted with a leaf
// certificate of the session's CA and served by a second http.Server.
// Every request is answered from the store at once; nothing ever goes to
// the network.
type proxy struct {
	ln        net.Listener
	outer     *http.Server
	inner     *http.Server
	tunnels   *connListener
	ca        *authority
	store     *store
	log       hclog.Logger
	unmatched int
	done      chan struct{}
}

// listen starts a proxy on addr.
func listen(addr string, ca *authority, st *store, unmatched int, log hclog.Logger) (*proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &proxy{ln: ln, ca: ca, store: st, log: log, unmatched: unmatched, done: make(chan struct{}),
		tunnels: newConnListener(ln.Addr())}
	p.outer = &http.Server{Handler: http.HandlerFunc(p.serveOuter), ReadHeaderTimeout: 10 * time.Second}
	p.inner = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.answer(w, r, "https") }),
		ReadHeaderTimeout: 10 * time.Second}
	p.outer.ErrorLog = log.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug})
	p.inner.ErrorLog = p.outer.ErrorLog
	go func() { _ = p.outer.Serve(ln) }()
	go func() { _ = p.inner.Serve(p.tunnels) }()
	return p, nil
}

// port is the port the proxy listens on.
func (p *proxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// close stops both servers and every connection, tunnels included.
func (p *proxy) close() error {
	close(p.done)
	err := p.outer.Close()
	p.tunnels.Close()
	if e := p.inner.Close(); err == nil {
		err = e
	}
	return err
}

// serveOuter handles what Chrome sends to the proxy itself.
func (p *proxy) serveOuter(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		p.connect(w, r)
	case r.URL.IsAbs():
		p.answer(w, r, "http")
	default:
		http.Error(w, "mmcp mockserver is a forward proxy: send requests in absolute form (configure it as the HTTP proxy)", http.StatusBadRequest)
	}
}

// connect takes over a CONNECT tunnel and hands its TLS side to the inner
// server. The certificate is minted for the SNI name (the CONNECT host
// when the client sends none).
func (p *proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "CONNECT is not supported on this connection", http.StatusInternalServerError)
		return
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		return
	}
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		conn.Close()
		return
	}
	var c net.Conn = conn
	if brw.Reader.Buffered() > 0 {
		c = &bufferedConn{Conn: conn, r: brw.Reader}
	}
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			name := hello.ServerName
			if name == "" {
				name = host
			}
			return p.ca.leaf(strings.ToLower(name))
		},
	}
	p.tunnels.push(tls.Server(c, cfg))
}

// answer answers one request from the mocks and records it. A request no
// mock matches fails at once with p.unmatched and a body that says so.
func (p *proxy) answer(w http.ResponseWriter, r *http.Request, scheme string) {
	start := time.Now()
	url := requestURL(scheme, r)
	rec := Record{Time: start.UTC().Format(time.RFC3339Nano), Method: r.Method, URL: url}
	m, ok := p.store.match(r.Method, url)
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set(markerHeader, "unmatched")
		// A page's fetch sees the failure status rather than a CORS error.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(p.unmatched)
		fmt.Fprintf(w, "mmcp mockserver: no mock matches %s %s; declare one with the mockserver add_mock tool (mockserver_add_mock). mockserver_requests lists every request.\n", r.Method, url)
		rec.Status = p.unmatched
		p.store.record(rec)
		p.log.Debug("unmatched", "method", r.Method, "url", url)
		return
	}
	if m.DelayMs > 0 {
		t := time.NewTimer(time.Duration(m.DelayMs) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-p.done:
			return
		}
	}
	m.write(w)
	rec.Matched, rec.MockID, rec.Status = true, m.ID, m.Status
	p.store.record(rec)
	p.log.Debug("mocked", "method", r.Method, "url", url, "mock", m.ID, "status", m.Status, "ms", time.Since(start).Milliseconds())
}

// requestURL is the request's full URL: scheme://host[:port]/path?query,
// the host lowercased and the scheme's default port left out.
func requestURL(scheme string, r *http.Request) string {
	host := strings.ToLower(r.Host)
	if h, port, err := net.SplitHostPort(host); err == nil &&
		((scheme == "https" && port == "443") || (scheme == "http" && port == "80")) {
		host = h
		if strings.Contains(h, ":") {
			host = "[" + h + "]"
		}
	}
	return scheme + "://" + host + r.URL.RequestURI()
}

// bufferedConn is a conn whose first bytes were already read into r.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// connListener is a net.Listener fed with the tunnels' TLS connections.
type connListener struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newConnListener(addr net.Addr) *connListener {
	return &connListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

// push hands c to the inner server, or closes it once the proxy stopped.
func (l *connListener) push(c net.Conn) {
	select {
	case l.ch <- c:
	case <-l.done:
		c.Close()
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }
