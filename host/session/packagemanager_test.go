package session

import (
	"os"
	"path/filepath"
	"testing"
)

// TestYarnVersionDeclared: a workspace that declares its package manager
// is recorded with that version, not the yarn on PATH.
func TestYarnVersionDeclared(t *testing.T) {
	global := cmdOutput("", "yarn", "--version")
	for _, c := range []struct{ pkg, want string }{
		{`{"packageManager": "yarn@4.2.2"}`, "4.2.2"},
		{`{"packageManager": "yarn@4.2.2+sha512.3a1b"}`, "4.2.2"},
		{`{"packageManager": "pnpm@9.1.0"}`, ""},
		{`{"name": "no-declaration"}`, global},
		{`not json`, global},
	} {
		repo := t.TempDir()
		if err := os.WriteFile(filepath.Join(repo, "package.json"), []byte(c.pkg), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := yarnVersion(repo); got != c.want {
			t.Errorf("%s: yarnVersion %q, want %q", c.pkg, got, c.want)
		}
	}
	if got := yarnVersion(""); got != global {
		t.Errorf("no workspace: %q, want the yarn on PATH %q", got, global)
	}
}
