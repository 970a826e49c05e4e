package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/internal/testutil"
)

// testExt is the tiny MV3 test extension.
func testExt(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs("testdata/ext")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// testPages are the test extension's pages (its home and notification
// pages are named as MetaMask's).
var testPages = Pages{
	HomePage: "home.html", NotificationPage: "notification.html", SettingsFragment: "#settings",
	NotificationMarkers: []string{"notification.html"}, PopupSize: Viewport{Width: 360, Height: 620},
}

// launchTest starts a session on the test extension (failing when no
// Chrome is installed) and closes it when the test ends.
func launchTest(t testing.TB, mod ...func(*Options)) *Chrome {
	t.Helper()
	if _, err := FindChrome(""); err != nil {
		t.Fatal("no chrome (make setup installs it):", err)
	}
	// MMCP_TEST_HEADED=1 (with $DISPLAY, e.g. Xvfb) runs the tests headed.
	headless := os.Getenv("MMCP_TEST_HEADED") != "1"
	o := Options{Pages: testPages, ExtensionPath: testExt(t), Headless: headless, ArtifactsDir: t.TempDir()}
	for _, m := range mod {
		m(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Launch(ctx, o)
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	testutil.CloseAtEnd(t, s)
	return s
}

func TestLaunchOpensHomeWithComputedExtensionID(t *testing.T) {
	s := launchTest(t)
	want := idFromBytes([]byte(testExt(t)))
	if s.ExtensionID() != want {
		t.Fatalf("extension id %q, want %q (sha256 of the path)", s.ExtensionID(), want)
	}
	tabs := s.Tabs()
	if tabs.Active.Role != RoleExtension || tabs.Active.URL != "chrome-extension://"+want+"/home.html#/unlock" {
		t.Fatalf("active tab %+v, want the extension home page", tabs.Active)
	}
	if s.ActivePage() == nil {
		t.Fatal("no active page")
	}
	if !strings.HasPrefix(s.UserDataDir(), os.TempDir()) {
		t.Fatalf("user data dir %q not under %q", s.UserDataDir(), os.TempDir())
	}
}

func TestLaunchRefusesBadInputs(t *testing.T) {
	ctx := context.Background()
	_, err := Launch(ctx, Options{ExtensionPath: testExt(t), Headless: true})
	wantCodeTB(t, err, "MM_INVALID_INPUT") // no pages
	_, err = Launch(ctx, Options{Pages: testPages, ExtensionPath: t.TempDir(), Headless: true})
	wantCodeTB(t, err, "MM_INVALID_INPUT") // no manifest.json
	_, err = Launch(ctx, Options{Pages: testPages, Headless: true})
	wantCodeTB(t, err, "MM_INVALID_INPUT") // nothing to load
	_, err = Launch(ctx, Options{Pages: testPages, ExtensionPath: testExt(t), ChromePath: "/nonexistent/chrome", Headless: true})
	wantCodeTB(t, err, "MM_LAUNCH_FAILED")
	_, err = Launch(ctx, Options{Pages: testPages, CDPURL: "http://127.0.0.1:1"})
	wantCodeTB(t, err, "MM_LAUNCH_FAILED")
}

func wantCodeTB(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), code+":") {
		t.Fatalf("got %v, want %s", err, code)
	}
}
