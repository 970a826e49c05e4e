package cli

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/config"

	"github.com/hashicorp/go-hclog"
)

func TestHTTPGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4321}
	g := newHTTPGuard(ok, addr, "secret", hclog.NewNullLogger())
	for _, c := range []struct {
		name, host, origin, auth string
		want                     int
	}{
		{"ok", "127.0.0.1:4321", "", "Bearer secret", http.StatusTeapot},
		{"localhost", "localhost:4321", "http://localhost:5173", "Bearer secret", http.StatusTeapot},
		{"ipv6 origin", "[::1]:4321", "http://[::1]:8080", "bearer secret", http.StatusTeapot},
		{"no token", "127.0.0.1:4321", "", "", http.StatusUnauthorized},
		{"token prefix", "127.0.0.1:4321", "", "Bearer secre", http.StatusUnauthorized},
		{"basic", "127.0.0.1:4321", "", "Basic secret", http.StatusUnauthorized},
		{"foreign origin", "127.0.0.1:4321", "https://evil.example", "Bearer secret", http.StatusForbidden},
		{"lookalike origin", "127.0.0.1:4321", "http://localhost.evil.example", "Bearer secret", http.StatusForbidden},
		{"file origin", "127.0.0.1:4321", "null", "Bearer secret", http.StatusForbidden},
		{"rebinding", "evil.example:4321", "", "Bearer secret", http.StatusForbidden},
		{"other port", "127.0.0.1:80", "", "Bearer secret", http.StatusForbidden},
		{"no port", "localhost", "", "Bearer secret", http.StatusForbidden},
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s: status %d, want %d", c.name, rec.Code, c.want)
		}
	}
}

func TestListenAddr(t *testing.T) {
	for in, want := range map[string]string{"": "127.0.0.1:0", "8080": "127.0.0.1:8080", "0.0.0.0:9": "0.0.0.0:9", ":9": "127.0.0.1:9", "[::]:9": "[::]:9"} {
		if got := listenAddr(in); got != want {
			t.Errorf("listenAddr(%q) = %q, want %q", in, got, want)
		}
	}
	if u := endpointURL(&net.TCPAddr{IP: net.IPv4zero, Port: 9}); u != "http://127.0.0.1:9/mcp" {
		t.Errorf("endpointURL = %s", u)
	}
}

func TestServeStateClaim(t *testing.T) {
	repo := t.TempDir()
	path := ServeStatePath(repo)
	me := ServeState{URL: "http://127.0.0.1:1/mcp", Token: "t1", PID: os.Getpid()}
	if err := claimServeState(path, me); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("serve.json mode %v, %v", st.Mode(), err)
	}
	if dir, _ := os.Stat(filepath.Dir(path)); dir.Mode().Perm() != 0o700 {
		t.Fatalf(".mmcp mode %v", dir.Mode())
	}
	if got, ok := ReadServeState(repo); !ok || got.Token != "t1" {
		t.Fatalf("ReadServeState = %+v, %v", got, ok)
	}
	// A live owner refuses a second claim, naming its URL.
	err = claimServeState(path, ServeState{URL: "http://127.0.0.1:2/mcp", Token: "t2", PID: os.Getpid()})
	if err == nil || !strings.Contains(err.Error(), me.URL) {
		t.Fatalf("second claim: %v", err)
	}
	// Removing checks ownership.
	removeServeState(path, ServeState{PID: me.PID, Token: "other"})
	if _, err := os.Stat(path); err != nil {
		t.Fatal("removed a file owned by another serve")
	}
	removeServeState(path, me)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("serve.json not removed")
	}

	// A file whose process is gone is stale: ignored and replaced.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` binary")
	}
	dead := ServeState{URL: "http://127.0.0.1:3/mcp", Token: "dead", PID: cmd.Process.Pid}
	if err := writeServeState(path, dead); err != nil {
		t.Fatal(err)
	}
	if _, ok := ReadServeState(repo); ok {
		t.Fatal("a dead pid's serve.json counts as running")
	}
	if err := claimServeState(path, me); err != nil {
		t.Fatalf("claim over a stale file: %v", err)
	}
	if got, ok := ReadServeState(repo); !ok || got.Token != me.Token {
		t.Fatalf("after takeover: %+v", got)
	}
}

func TestSpawnArgs(t *testing.T) {
	got := strings.Join(spawnArgs(config.Config{Headless: true, PluginPath: []string{"a", "b"}, ToolPrefix: "mm"}, "/ws"), " ")
	if !strings.HasPrefix(got, "--repo /ws --plugin-path a:b") || !strings.Contains(got, "--headless") || !strings.Contains(got, "--tool-prefix mm") {
		t.Fatalf("spawnArgs = %s", got)
	}
}

// TestRefusedConnectionsClosed: the server closes the connection of a
// request the guard refuses, and one that sends no request at all.
func TestRefusedConnectionsClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	srv := newHTTPServer(newHTTPGuard(ok, ln.Addr().(*net.TCPAddr), "secret", hclog.NewNullLogger()), hclog.NewNullLogger())
	srv.ReadHeaderTimeout = 200 * time.Millisecond
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	closed := func(c net.Conn, within time.Duration) bool {
		_ = c.SetReadDeadline(time.Now().Add(within))
		_, err := io.ReadAll(c) // up to EOF: the server closed it
		return err == nil
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Length: 0\r\n\r\n", ln.Addr())
	if !closed(c, 5*time.Second) {
		t.Fatal("the connection of a 401 stayed open")
	}
	silent, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	if !closed(silent, 5*time.Second) {
		t.Fatal("a connection that sends nothing stayed open")
	}
	// An authenticated keep-alive request keeps its connection.
	a, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fmt.Fprintf(a, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer secret\r\nContent-Length: 0\r\n\r\n", ln.Addr())
	resp, err := http.ReadResponse(bufio.NewReader(a), nil)
	if err != nil || resp.StatusCode != http.StatusTeapot || resp.Close {
		t.Fatalf("authenticated request: %v %+v", err, resp)
	}
}

// TestSlowBodyClosed: a request whose body trickles in past the body
// deadline is answered 400 and its connection closed; a request whose
// handler runs past the deadline (a long call) is not cut off.
func TestSlowBodyClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const d = 300 * time.Millisecond
	slowHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if string(body) == "long" {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(3 * d):
			}
		}
		w.WriteHeader(http.StatusTeapot)
	})
	srv := newHTTPServer(slowHandler, hclog.NewNullLogger())
	srv.Handler = bodyDeadline(slowHandler, d)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
	_ = c.SetReadDeadline(time.Now().Add(20 * d))
	out, err := io.ReadAll(c) // up to EOF: the server closed it
	if err != nil || !strings.Contains(string(out), "400 Bad Request") {
		t.Fatalf("slow body: %q %v, want a 400 and the connection closed", out, err)
	}

	// A long call whose body came at once runs to its end.
	a, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fmt.Fprintf(a, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nlong")
	resp, err := http.ReadResponse(bufio.NewReader(a), nil)
	if err != nil || resp.StatusCode != http.StatusTeapot {
		t.Fatalf("long call: %v %+v", err, resp)
	}
}
