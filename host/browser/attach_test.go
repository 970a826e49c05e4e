package browser

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// TestManifestKeyGivesTheID loads a copy of the test extension with a
// manifest key: Chrome must use the id derived from the key, which Launch
// computed up front.
func TestManifestKeyGivesTheID(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	entries, _ := os.ReadDir(testExt(t))
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(testExt(t), e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "manifest.json" {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			m["key"] = base64.StdEncoding.EncodeToString(der)
			b, _ = json.Marshal(m)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := launchTest(t, func(o *Options) { o.ExtensionPath = dir })
	if want := idFromBytes(der); s.ExtensionID() != want {
		t.Fatalf("id %s, want %s from the key", s.ExtensionID(), want)
	}
	if got, _ := ExtensionIDFromPath(dir); got != s.ExtensionID() {
		t.Fatalf("ExtensionIDFromPath %s, Chrome uses %s", got, s.ExtensionID())
	}
	if a := s.Tabs().Active; a.URL != "chrome-extension://"+s.ExtensionID()+"/home.html#/unlock" {
		t.Fatalf("active tab %+v, want the extension's unlock screen", a)
	}
}

// TestAttachFindsExtensionAndNeverClosesChrome attaches a second session to
// a running Chrome without an extension path: the id comes from the
// service worker, and Close leaves the browser running.
func TestAttachFindsExtensionAndNeverClosesChrome(t *testing.T) {
	owner := launchTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	att, err := Launch(ctx, Options{Pages: testPages, CDPURL: owner.DevToolsURL()})
	if err != nil {
		t.Fatal(err)
	}
	if att.ExtensionID() != owner.ExtensionID() || att.PID() != 0 {
		t.Fatalf("attached id %s pid %d, want %s and 0", att.ExtensionID(), att.PID(), owner.ExtensionID())
	}
	if a := att.Tabs().Active; a.Role != RoleExtension || !strings.HasSuffix(a.URL, "/home.html#/unlock") {
		t.Fatalf("attached session's active tab %+v, want the extension's unlock screen", a)
	}
	if err := att.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !ChromeProcessAlive(owner.PID()) {
		t.Fatal("closing an attached session killed Chrome")
	}
	var href string
	if err := owner.Eval(ctx, `location.href`, &href); err != nil {
		t.Fatalf("owner session broken after the attached one closed: %v", err)
	}
	// The attached session's own tab (its home page) closed with it.
	waitTab(t, owner, "home alone", func(observation.Tab) bool { return len(owner.Tabs().Tracked) == 1 })
}
