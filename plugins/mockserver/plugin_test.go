package mockserver

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

// started returns a configured, started plugin on workspace ws ("" for
// none) and stops it when the test ends.
func started(t *testing.T, ws string, settings string) (*Plugin, sdk.MockServerStatus) {
	t.Helper()
	p := New(nil)
	cfg := sdk.Config{Workspace: ws}
	if settings != "" {
		cfg.Settings = json.RawMessage(settings)
	}
	if err := p.Configure(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	st, err := p.start(sdk.MockServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop(context.Background()) })
	return p, st
}

// client is an HTTP client that goes through the proxy and trusts the
// server's certificates the way Chrome does with
// --ignore-certificate-errors-spki-list: only a chain holding a
// certificate whose SPKI hash is spki, valid for the host.
func client(st sdk.MockServerStatus) *http.Client {
	proxyURL, _ := url.Parse("http://" + st.Address)
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			Proxy: http.ProxyURL(proxyURL),
			TLSClientConfig: &tls.Config{
				InsecureSkipVerify: true, // replaced by the SPKI check below
				VerifyConnection: func(cs tls.ConnectionState) error {
					pool := x509.NewCertPool()
					for _, c := range cs.PeerCertificates {
						sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
						if base64.StdEncoding.EncodeToString(sum[:]) == st.SPKIHash {
							pool.AddCert(c)
						}
					}
					_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{DNSName: cs.ServerName, Roots: pool})
					return err
				},
			},
		},
	}
}

func call(t *testing.T, p *Plugin, tool, args string) map[string]any {
	t.Helper()
	v, err := testutil.CallTool(context.Background(), p, tool, json.RawMessage(args), sdk.NopEvents{})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	b, _ := json.Marshal(v)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func get(t *testing.T, c *http.Client, method, u string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, u, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestSniff: a body that is markup is served as HTML even when
// http.DetectContentType does not know its first tag (the README's
// example); text stays text, JSON and XML keep theirs.
func TestSniff(t *testing.T) {
	for body, want := range map[string]string{
		`<button data-testid="hello">Hi</button>`: "text/html; charset=utf-8",
		"\n  <my-app></my-app>":                   "text/html; charset=utf-8",
		`<!doctype html><p>x</p>`:                 "text/html; charset=utf-8",
		"hello <world>":                           "text/plain; charset=utf-8",
		"a < b and c > d":                         "text/plain; charset=utf-8",
		"<3 you":                                  "text/plain; charset=utf-8",
		`<?xml version="1.0"?><a/>`:               "text/xml; charset=utf-8",
	} {
		if got := sniff([]byte(body)); got != want {
			t.Errorf("sniff(%q) = %q, want %q", body, got, want)
		}
	}
}

func records(t *testing.T, p *Plugin, args string) []Record {
	t.Helper()
	v, err := testutil.CallTool(context.Background(), p, "requests", json.RawMessage(args), sdk.NopEvents{})
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)["requests"].([]Record)
}

// A declared HTTPS mock answers through CONNECT with a certificate Chrome
// would accept by the CA's SPKI hash; an unmocked host fails at once and
// is recorded as unmatched.
func TestHTTPSMockAndUnmatched(t *testing.T) {
	p, st := started(t, "", `{"defaultMocks": false}`)
	if !st.Running || st.Port == 0 || st.Address != fmt.Sprintf("127.0.0.1:%d", st.Port) || st.SPKIHash == "" {
		t.Fatalf("status %+v", st)
	}
	page := `<!doctype html><button data-testid="hello-button">Hi</button>`
	out := call(t, p, "add_mock", fmt.Sprintf(`{"method":"GET","url":"https://api.example.test/hello","body":%q}`, page))
	if out["id"] != "m1" {
		t.Fatalf("add_mock = %v", out)
	}
	c := client(st)
	resp, body := get(t, c, "GET", "https://api.example.test/hello")
	if resp.StatusCode != 200 || body != page || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Header.Get(markerHeader) != "m1" {
		t.Fatalf("mocked: %d %q %v", resp.StatusCode, body, resp.Header)
	}

	start := time.Now()
	resp, body = get(t, c, "GET", "https://unmocked.example.test/")
	if d := time.Since(start); d > time.Second {
		t.Fatalf("unmatched request took %s", d)
	}
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "no mock matches GET https://unmocked.example.test/") {
		t.Fatalf("unmatched: %d %q", resp.StatusCode, body)
	}
	rs := records(t, p, `{}`)
	if len(rs) != 2 || !rs[0].Matched || rs[0].MockID != "m1" || rs[0].URL != "https://api.example.test/hello" || rs[0].Status != 200 ||
		rs[1].Matched || rs[1].URL != "https://unmocked.example.test/" || rs[1].Status != 502 || rs[1].Time == "" {
		t.Fatalf("records %+v", rs)
	}
	if rs := records(t, p, `{"unmatched":true}`); len(rs) != 1 || rs[0].URL != "https://unmocked.example.test/" {
		t.Fatalf("unmatched filter %+v", rs)
	}
	if rs := records(t, p, `{"url":"api.example"}`); len(rs) != 1 || rs[0].MockID != "m1" {
		t.Fatalf("url filter %+v", rs)
	}
}

// Plain HTTP, match kinds, methods, times, newest wins, id replacement,
// delay, JSON bodies and headers.
func TestMatching(t *testing.T) {
	p, st := started(t, "", `{"defaultMocks": false}`)
	c := client(st)
	call(t, p, "add_mock", `{"url":"http://plain.example.test/x","json":{"a":1}}`)
	call(t, p, "add_mock", `{"id":"pre","method":"post","url":"https://api.example.test/v1/","match":"prefix","status":201,"headers":{"X-Test":"yes"},"body":"created"}`)
	call(t, p, "add_mock", `{"id":"re","url":"^https://[a-z]+\\.example\\.test/n/[0-9]+$","match":"regex","times":2,"json":"two"}`)
	call(t, p, "add_mock", `{"id":"slow","url":"https://slow.example.test/","delayMs":150,"body":"slow"}`)

	resp, body := get(t, c, "GET", "http://plain.example.test/x?q=1")
	if resp.StatusCode != 200 || body != `{"a":1}` || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("plain http with query: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := get(t, c, "GET", "http://plain.example.test/xy"); resp.StatusCode != 502 {
		t.Fatalf("exact matched a longer path: %d", resp.StatusCode)
	}
	if resp, body := get(t, c, "POST", "https://api.example.test/v1/things"); resp.StatusCode != 201 || body != "created" || resp.Header.Get("X-Test") != "yes" {
		t.Fatalf("prefix post: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, c, "GET", "https://api.example.test/v1/things"); resp.StatusCode != 502 {
		t.Fatalf("a POST mock answered GET: %d", resp.StatusCode)
	}
	for i := 0; i < 3; i++ {
		resp, body := get(t, c, "GET", fmt.Sprintf("https://a.example.test/n/%d", i))
		if want := map[bool]int{true: 200, false: 502}[i < 2]; resp.StatusCode != want {
			t.Fatalf("regex with times 2, request %d: %d %q, want %d", i, resp.StatusCode, body, want)
		}
	}
	start := time.Now()
	if _, body := get(t, c, "GET", "https://slow.example.test/"); body != "slow" || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("delay: %q after %s", body, time.Since(start))
	}
	// The newest mock wins; redeclaring an id replaces it.
	call(t, p, "add_mock", `{"url":"http://plain.example.test/x","body":"newer"}`)
	if _, body := get(t, c, "GET", "http://plain.example.test/x"); body != "newer" {
		t.Fatalf("newest mock did not win: %q", body)
	}
	call(t, p, "add_mock", `{"id":"re","url":"https://a.example.test/n/9","body":"replaced"}`)
	if _, body := get(t, c, "GET", "https://a.example.test/n/9"); body != "replaced" {
		t.Fatalf("replaced mock: %q", body)
	}
	ms := call(t, p, "mocks", `{}`)["mocks"].([]any)
	if len(ms) != 5 {
		t.Fatalf("mocks %v", ms)
	}
	first := ms[0].(map[string]any)
	if first["id"] != "re" || first["source"] != "tool" {
		t.Fatalf("first mock in match order %v", first)
	}
}

// Bad mocks are MM_INVALID_INPUT naming the field.
func TestAddMockInvalid(t *testing.T) {
	p := New(nil)
	for args, field := range map[string]string{
		`{"url":"api.example.test"}`:                     "url",
		`{"url":"(","match":"regex"}`:                    "url",
		`{"url":"https://x.test/","json":{},"body":"x"}`: "json",
		`{"url":"https://x.test/","match":"glob"}`:       "match",
		`{"url":"https://x.test/","delayMs":600000}`:     "delayMs",
	} {
		_, err := testutil.CallTool(context.Background(), p, "add_mock", json.RawMessage(args), sdk.NopEvents{})
		var e *sdk.Error
		if !errors.As(err, &e) || e.Code != sdk.CodeInvalidInput || e.Details["field"] != field {
			t.Errorf("%s: %v, want MM_INVALID_INPUT on %s", args, err, field)
		}
	}
}

// The built-in mocks answer MetaMask's start-up calls; a workspace file
// overrides them; a later tool mock overrides both.
func TestDefaultAndWorkspaceMocks(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".mmcp", "mocks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prices.json"), []byte(`[{"method":"GET","url":"https://min-api.cryptocompare.com/data/price","json":{"USD":4242}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, st := started(t, ws, "")
	c := client(st)
	for _, tc := range []struct{ method, url, mock, body string }{
		{"POST", "https://api.segment.io/v1/batch", "segment-batch", ""},
		{"GET", "https://gas.api.cx.metamask.io/networks/1337/suggestedGasFees", "gas-suggested-fees", `"estimatedBaseFee":"19.444436136"`},
		{"GET", "https://phishing-detection.api.cx.metamask.io/v1/stalelist", "phishing-stalelist", `"tolerance":2`},
		{"GET", "https://min-api.cryptocompare.com/data/price?fsym=ETH&tsyms=USD", "prices:0", `{"USD":4242}`},
	} {
		resp, body := get(t, c, tc.method, tc.url)
		if resp.StatusCode != 200 || resp.Header.Get(markerHeader) != tc.mock || !strings.Contains(strings.ReplaceAll(body, " ", ""), tc.body) {
			t.Errorf("%s %s: %d %s %q", tc.method, tc.url, resp.StatusCode, resp.Header.Get(markerHeader), body)
		}
	}
	// clear keeps the file mocks unless all.
	call(t, p, "add_mock", `{"url":"https://x.test/"}`)
	if out := call(t, p, "clear", `{}`); out["removedMocks"] != float64(1) || out["removedRequests"] != float64(4) {
		t.Fatalf("clear = %v", out)
	}
	if resp, _ := get(t, c, "POST", "https://api.segment.io/v1/batch"); resp.StatusCode != 200 {
		t.Fatalf("default mock gone after clear: %d", resp.StatusCode)
	}
	call(t, p, "clear", `{"all":true}`)
	if ms := call(t, p, "mocks", `{}`)["mocks"].([]any); len(ms) != 0 {
		t.Fatalf("mocks after clear all: %v", ms)
	}
	if resp, _ := get(t, c, "POST", "https://api.segment.io/v1/batch"); resp.StatusCode != 502 {
		t.Fatalf("default mock answered after clear all: %d", resp.StatusCode)
	}

	// A bad workspace file fails the next start and names the file.
	bad := filepath.Join(dir, "zz-bad.json")
	if err := os.WriteFile(bad, []byte(`[{"url":"https://x.test/","colour":"red"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := p.start(sdk.MockServerOptions{})
	var e *sdk.Error
	if !errors.As(err, &e) || e.Code != sdk.CodeInvalidConfig || !strings.Contains(e.Message, bad) {
		t.Fatalf("start with a bad mock file: %v", err)
	}
}

// Stop closes the port and ends the session's mocks and records; every
// start has a new CA.
func TestStopAndRestart(t *testing.T) {
	p, st := started(t, "", "")
	c := client(st)
	call(t, p, "add_mock", `{"url":"https://api.example.test/hello","body":"hi"}`)
	get(t, c, "GET", "https://api.example.test/hello")
	if err := p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", st.Address, time.Second); err == nil {
		conn.Close()
		t.Fatalf("proxy %s still listening after Stop", st.Address)
	}
	if p.status().Running {
		t.Fatal("running after Stop")
	}
	if rs := records(t, p, `{}`); len(rs) != 0 {
		t.Fatalf("records after stop %+v", rs)
	}
	for _, m := range call(t, p, "mocks", `{}`)["mocks"].([]any) {
		if m.(map[string]any)["source"] == "tool" {
			t.Fatalf("tool mock survived stop: %v", m)
		}
	}
	st2, err := p.start(sdk.MockServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st2.SPKIHash == st.SPKIHash {
		t.Fatal("the CA was reused across starts")
	}
	// The old CA's hash no longer verifies the new proxy's certificates.
	st2old := st2
	st2old.SPKIHash = st.SPKIHash
	if _, err := client(st2old).Get("https://api.segment.io/v1/batch"); err == nil {
		t.Fatal("the previous session's CA hash was accepted")
	}
}

func TestPortInUseAndSettings(t *testing.T) {
	p := New(nil)
	_, err := p.start(sdk.MockServerOptions{Port: testutil.BusyPort(t)})
	var e *sdk.Error
	if !errors.As(err, &e) || e.Code != sdk.CodePortInUse {
		t.Fatalf("busy port: %v", err)
	}
	err = p.Configure(context.Background(), sdk.Config{Settings: json.RawMessage(`{"prot": 1}`)})
	if !errors.As(err, &e) || e.Code != sdk.CodeInvalidConfig || !strings.Contains(e.Message, "prot") {
		t.Fatalf("unknown setting: %v", err)
	}
	p2, st := started(t, "", `{"unmatchedStatus": 599}`)
	_ = p2
	if resp, _ := get(t, client(st), "GET", "https://nothing.example.test/"); resp.StatusCode != 599 {
		t.Fatalf("unmatchedStatus setting: %d", resp.StatusCode)
	}
}

// Every built-in mock file is valid.
func TestDefaultFilesLoad(t *testing.T) {
	ms, err := loadMocks(true, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range ms {
		if ids[m.ID] {
			t.Errorf("duplicate default mock id %s", m.ID)
		}
		ids[m.ID] = true
	}
	if len(ms) < 20 {
		t.Fatalf("%d default mocks", len(ms))
	}
}
