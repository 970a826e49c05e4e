package main

import (
	"os"
	"strings"
	"testing"
)

// The README's install recipe works as written: the module is not on a
// public proxy, so no `go install …@latest`; and it names every binary
// under cmd/ (the host finds its plugins next to itself).
func TestReadmeInstall(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "## Install")
	if start < 0 {
		t.Fatal("README has no Install section")
	}
	end := strings.Index(readme[start+1:], "\n## ")
	install := readme[start : start+1+end]
	if strings.Contains(install, "@latest") {
		t.Errorf("the Install section installs from a proxy the module is not on:\n%s", install)
	}
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(install, e.Name()) {
			t.Errorf("the Install section does not name %s", e.Name())
		}
	}
}
