package session

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBackgroundPrint: the print changes with the files the background
// loads (the manifest, the service worker, what it imports, a content
// script) and not with files only the pages load (a UI bundle, a locale).
func TestBackgroundPrint(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("manifest.json", `{"background":{"service_worker":"scripts/app-init.js"},"content_scripts":[{"js":["scripts/contentscript.js"]}]}`)
	// MetaMask's app-init.js: single files, and a list of bundles.
	write("scripts/app-init.js", `loadFile('../scripts/lockdown-run.js'); const rawFileList = "../common-0.js,../background-0.js"; tryImport('ecrecover.js'); x('scripts/inpage.js')`)
	for _, f := range []string{"scripts/lockdown-run.js", "common-0.js", "background-0.js", "scripts/ecrecover.js", "scripts/inpage.js", "scripts/contentscript.js", "ui-0.js", "_locales/en/messages.json", "home.html"} {
		write(f, "v1 "+f)
	}
	base, err := backgroundPrint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(base) != 8 {
		t.Fatalf("print of %d files, want 8 (manifest, worker, 5 imports, content script): %v", len(base), base)
	}
	for _, f := range []string{"ui-0.js", "_locales/en/messages.json", "home.html"} {
		write(f, "v2 "+f)
		if p, err := backgroundPrint(dir); err != nil || !p.same(base) {
			t.Fatalf("a change of %s (pages only) changed the background's print (%v)", f, err)
		}
	}
	for _, f := range []string{"common-0.js", "background-0.js", "scripts/lockdown-run.js", "scripts/ecrecover.js", "scripts/inpage.js", "scripts/contentscript.js", "scripts/app-init.js", "manifest.json"} {
		old, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		write(f, string(old)+" ")
		if p, err := backgroundPrint(dir); err != nil || p.same(base) {
			t.Fatalf("a change of %s (the background's) left its print the same (%v)", f, err)
		}
		write(f, string(old))
	}
	write("manifest.json", `{"background":{"page":"background.html"}}`)
	if p, err := backgroundPrint(dir); err == nil || p.same(p) {
		t.Fatalf("a background page's print: %v, %v; want none", p, err)
	}
}
