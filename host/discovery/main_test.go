package discovery

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
)

const chromeBin = "/usr/lib/chromium/chromium"

var (
	update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

	browser  *rod.Browser
	testPipe *Pipe // on browser's connection
	server   *httptest.Server
	pages    sync.Map // path -> html
	pageSeq  atomic.Int64
)

func TestMain(m *testing.M) {
	flag.Parse()
	server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/testdata/") {
			http.ServeFile(w, r, "."+r.URL.Path)
			return
		}
		html, ok := pages.Load(r.URL.Path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
	code := run(m)
	server.Close()
	os.Exit(code)
}

func run(m *testing.M) int {
	if _, err := os.Stat(chromeBin); err != nil {
		return m.Run() // browser stays nil: browser tests skip
	}
	l := launcher.New().Bin(chromeBin).Headless(false).Set("headless", "new").NoSandbox(true).Leakless(true).
		Set("disable-background-networking").Set("disable-component-update").Set("disable-sync").Set("no-first-run")
	defer l.Cleanup()
	u, err := l.Launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch chrome:", err)
		return 1
	}
	// The tests' clicks go through a pipe on the connection, as the host's
	// do.
	ws := &cdp.WebSocket{}
	if err := ws.Connect(context.Background(), u, nil); err != nil {
		fmt.Fprintln(os.Stderr, "connect chrome:", err)
		l.Kill()
		return 1
	}
	testPipe = NewPipe(ws)
	browser = rod.New().Context(WithCache(context.Background(), NewCache())).Client(cdp.New().Start(ws))
	if err := browser.Connect(); err != nil {
		fmt.Fprintln(os.Stderr, "connect chrome:", err)
		l.Kill()
		return 1
	}
	defer func() {
		_ = browser.Close()
		l.Kill()
	}()
	return m.Run()
}

// serve registers html and returns its URL.
func serve(html string) string {
	path := fmt.Sprintf("/p%d.html", pageSeq.Add(1))
	pages.Store(path, html)
	return server.URL + path
}

// open opens url in a new page, waits for its load and closes it at the end.
func open(tb testing.TB, url string) *rod.Page {
	tb.Helper()
	return openIn(tb, browser, url)
}

// openIn is open in b (the test browser with another context).
func openIn(tb testing.TB, b *rod.Browser, url string) *rod.Page {
	tb.Helper()
	if browser == nil {
		tb.Skip("chromium not installed at " + chromeBin)
	}
	p, err := b.Page(proto.TargetCreateTarget{URL: url})
	if err != nil {
		tb.Fatalf("open page: %v", err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Context(ctx).WaitLoad(); err != nil {
		tb.Fatalf("wait load: %v", err)
	}
	return p
}

// openHTML serves body inside a minimal document and opens it.
func openHTML(tb testing.TB, body string) *rod.Page {
	tb.Helper()
	return open(tb, serve("<!doctype html><html><head><title>t</title></head><body>"+body+"</body></html>"))
}

func ctxT(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}

// attr reads an attribute through CDP's DOM domain (no main-world JS).
func attr(tb testing.TB, p *rod.Page, selector, name string) string {
	tb.Helper()
	el, err := p.Timeout(5 * time.Second).Element(selector)
	if err != nil {
		tb.Fatalf("find %s: %v", selector, err)
	}
	v, err := el.Attribute(name)
	if err != nil {
		tb.Fatalf("attribute %s: %v", name, err)
	}
	if v == nil {
		return ""
	}
	return *v
}

type rodPage = rod.Page

func itoa(i int) string { return fmt.Sprint(i) }

// click is Click as the host makes it: the press through the pipe on the
// test browser's connection.
func click(ctx context.Context, p *rod.Page, refs *RefMap, t Target, opts ...ClickOptions) (ClickResult, error) {
	var o ClickOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Pipe = testPipe
	return Click(ctx, p, refs, t, o)
}

//go:embed testdata/page.html
var fixtures embed.FS
