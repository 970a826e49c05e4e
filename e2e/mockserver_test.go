package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mockStatus is mockserver_status's result.
type mockStatus struct {
	Running  bool
	Address  string
	Port     int
	SPKIHash string `json:"spkiHash"`
}

type mockRecord struct {
	Method, URL, MockID string
	Matched             bool
	Status              int
}

func mockRequests(t testing.TB, h *Host, args map[string]any) []mockRecord {
	t.Helper()
	var out struct{ Requests []mockRecord }
	must(t, h.Call("mockserver_requests", args)).Decode(t, &out)
	return out.Requests
}

// mockedPage is served by the mock for https://api.example.test/hello: a
// button with a testid that, clicked, fetches an unmocked URL and shows
// the status it got and how long it took.
const mockedPage = `<!doctype html><html><head><title>mocked</title></head><body>
<button data-testid="mocked-hello">Hello from the mock</button>
<span data-testid="probe-result"></span>
<script>
document.querySelector('[data-testid="mocked-hello"]').addEventListener('click', async () => {
  const t0 = performance.now();
  let what;
  try { const r = await fetch('https://unmocked.example.test/'); what = 'status ' + r.status; } catch (e) { what = 'error'; }
  document.querySelector('[data-testid="probe-result"]').textContent = what + ' ' + Math.round(performance.now() - t0);
});
</script></body></html>`

// TestMockServerSession is issue 18's "done when": the test wallet runs
// behind the session's mock server; a declared HTTPS mock serves a page
// Chrome shows (its certificate trusted by the CA's SPKI hash only); an
// unmocked host fails within a second and is listed as unmatched; loopback
// traffic (fixture server, Anvil, a local dapp) never reaches the proxy;
// after mm_cleanup no proxy listens and no certificate was written.
func TestMockServerSession(t *testing.T) {
	tmp := t.TempDir() // the host's (and its plugins' and Chrome's) TMPDIR
	ws := walletWorkspace(t)
	h := startHost(t, HostOptions{Repo: ws, Args: []string{"--headless"}, Env: []string{"TMPDIR=" + tmp}})
	t.Cleanup(func() {
		if h.Cmd.ProcessState == nil {
			h.Call("mm_cleanup", map[string]any{})
		}
	})
	res := launchFree(t, h, map[string]any{})
	if st := launchState(t, res); st.CurrentScreen != "home" || !st.IsUnlocked {
		t.Fatalf("launch state %+v", st)
	}
	if got := strings.Join(steps(res), ","); got != "mocks,chain,fixture,browser,unlock" {
		t.Fatalf("prerequisites %s", got)
	}
	var st mockStatus
	must(t, h.Call("mockserver_status", map[string]any{})).Decode(t, &st)
	if !st.Running || st.Address == "" || st.SPKIHash == "" {
		t.Fatalf("mock server status %+v", st)
	}
	// Chrome trusts the proxy's CA by its SPKI hash, never blanket.
	chrome := pidsMatching("--proxy-server=http://"+st.Address, "--ignore-certificate-errors-spki-list="+st.SPKIHash, "--load-extension="+filepath.Join(ws, "dist", "chrome"))
	if len(chrome) == 0 {
		t.Fatalf("no Chrome launched through %s trusting %s", st.Address, st.SPKIHash)
	}
	if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", chrome[0])); bytes.Contains(b, []byte("--ignore-certificate-errors\x00")) {
		t.Fatal("Chrome ignores every certificate error")
	}
	ca := proxyCA(t, st.Address, "api.example.test")
	if sum := sha256.Sum256(ca.RawSubjectPublicKeyInfo); base64.StdEncoding.EncodeToString(sum[:]) != st.SPKIHash {
		t.Fatalf("the proxy's CA does not have the SPKI hash Chrome was given")
	}

	must(t, h.Call("mockserver_add_mock", map[string]any{"method": "GET", "url": "https://api.example.test/hello", "body": mockedPage}))
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": "https://api.example.test/hello"}))
	if got := testIDText(t, h, "mocked-hello"); got != "Hello from the mock" {
		t.Fatalf("mocked page testid text %q", got)
	}
	rs := mockRequests(t, h, map[string]any{"url": "api.example.test/hello"})
	if len(rs) != 1 || !rs[0].Matched || rs[0].MockID != "m1" || rs[0].Method != "GET" || rs[0].URL != "https://api.example.test/hello" || rs[0].Status != 200 {
		t.Fatalf("records of the mocked page %+v", rs)
	}

	t.Run("README example renders", func(t *testing.T) {
		// A bare fragment, as the README declares it: served as HTML.
		must(t, h.Call("mockserver_add_mock", map[string]any{"method": "GET", "url": "https://api.example.test/readme", "body": `<button data-testid="hello">Hi</button>`}))
		must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": "https://api.example.test/readme"}))
		must(t, h.Call("mm_wait_for", map[string]any{"testId": "hello", "timeoutMs": 5000}))
		must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": "https://api.example.test/hello"}))
	})

	t.Run("unmocked host fails at once", func(t *testing.T) {
		must(t, h.Call("mm_click", map[string]any{"testId": "mocked-hello"}))
		var got string
		if !eventually(10*time.Second, func() bool { got = testIDText(t, h, "probe-result"); return got != "" && got != "<missing>" }) {
			t.Fatalf("the probe never finished: %q", got)
		}
		var status, ms int
		if _, err := fmt.Sscanf(got, "status %d %d", &status, &ms); err != nil || status != 502 || ms >= 1000 {
			t.Fatalf("fetch of an unmocked URL: %q, want status 502 within 1000 ms", got)
		}
		rs := mockRequests(t, h, map[string]any{"unmatched": true, "url": "unmocked.example.test"})
		if len(rs) != 1 || rs[0].Matched || rs[0].URL != "https://unmocked.example.test/" || rs[0].Status != 502 {
			t.Fatalf("unmatched records %+v", rs)
		}
	})

	t.Run("loopback goes direct", func(t *testing.T) {
		srv := dappServer(t)
		must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))
		if got := testIDText(t, h, "counter"); got != "Count" {
			t.Fatalf("local dapp not shown: %q", got)
		}
		port := srv.Listener.Addr().(*net.TCPAddr).Port
		for _, r := range mockRequests(t, h, map[string]any{"limit": 2000}) {
			u, _ := url.Parse(r.URL)
			if host := u.Hostname(); host == "localhost" || host == "127.0.0.1" || host == "::1" ||
				strings.HasSuffix(u.Host, ":"+strconv.Itoa(port)) || strings.HasSuffix(u.Host, ":8545") || strings.HasSuffix(u.Host, ":12345") {
				t.Fatalf("loopback request went through the proxy: %+v", r)
			}
		}
	})

	must(t, h.Call("mm_cleanup", map[string]any{}))
	if conn, err := net.DialTimeout("tcp", st.Address, time.Second); err == nil {
		conn.Close()
		t.Fatalf("the mock server still listens on %s after mm_cleanup", st.Address)
	}
	var after mockStatus
	must(t, h.Call("mockserver_status", map[string]any{})).Decode(t, &after)
	if after.Running {
		t.Fatalf("mock server status after cleanup %+v", after)
	}
	// No certificate was written: not by the plugin, not by Chrome.
	pem := base64.StdEncoding.EncodeToString(ca.Raw)[:64]
	for _, dir := range []string{tmp, ws} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, ca.Raw) || bytes.Contains(b, []byte(pem)) || bytes.Contains(b, []byte("BEGIN CERTIFICATE")) {
				t.Errorf("certificate material left in %s", p)
			}
			return nil
		})
	}
}

// proxyCA opens a CONNECT tunnel through the proxy to host and returns the
// CA certificate of the chain it presents.
func proxyCA(t testing.TB, proxy, host string) *x509.Certificate {
	t.Helper()
	conn, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n", host, host)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	tc := tls.Client(conn, &tls.Config{ServerName: host, InsecureSkipVerify: true}) // inspected below, not trusted
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	for _, c := range tc.ConnectionState().PeerCertificates {
		if c.IsCA {
			return c
		}
	}
	t.Fatal("the proxy's chain has no CA certificate")
	return nil
}

// TestMockServerStandalone runs the plugin on its own: call start -hold
// serves the workspace's mock files until Ctrl-C, then the port is closed.
func TestMockServerStandalone(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".mmcp", "mocks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.json"), []byte(`[{"method":"GET","url":"https://api.example.test/hello","json":{"hello":"standalone"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	desc, err := exec.Command(filepath.Join(bin, "mmcp-plugin-mockserver"), "describe").Output()
	if err != nil || !bytes.Contains(desc, []byte(`"mockServer"`)) || !bytes.Contains(desc, []byte(`"add_mock"`)) {
		t.Fatalf("describe: %v\n%s", err, desc)
	}
	cmd, out := callHold(t, "mmcp-plugin-mockserver", ws, "start", "{}")
	var started struct {
		OK     bool
		Result mockStatus
	}
	if err := json.Unmarshal(out, &started); err != nil || !started.OK || !started.Result.Running {
		t.Fatalf("start: %v\n%s", err, out)
	}
	st := started.Result
	ca := proxyCA(t, st.Address, "api.example.test")
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	proxyURL, _ := url.Parse("http://" + st.Address)
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get("https://api.example.test/hello")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"hello":"standalone"}` {
		t.Fatalf("standalone mock: %d %s", resp.StatusCode, body)
	}
	stopHeld(t, cmd)
	if conn, err := net.DialTimeout("tcp", st.Address, time.Second); err == nil {
		conn.Close()
		t.Fatalf("still listening on %s after the plugin stopped", st.Address)
	}
}
