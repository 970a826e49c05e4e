package config

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/reference.md's settings table from the Settings table")

const (
	tableBegin = "<!-- settings:begin (made from host/config's Settings: go test ./host/config -run TestReferenceTable -update) -->\n"
	tableEnd   = "<!-- settings:end -->"
)

// docs/reference.md's table of flags, environment variables and config
// keys is the one Settings makes; -update rewrites it.
func TestReferenceTable(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "reference.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", path, tableBegin, tableEnd)
	}
	want := ReferenceTable()
	if got := doc[i+len(tableBegin) : j]; got != want {
		if !*update {
			t.Fatalf("%s's settings table is out of date; run go test ./host/config -run TestReferenceTable -update\n--- has\n%s--- want\n%s", path, got, want)
		}
		doc = doc[:i+len(tableBegin)] + want + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every setting with a flag has one, parses like it, and names its
// variable and key in its help; each variable and key is one setting's.
func TestSettingsTable(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("mmcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	DeclareFlags(fs, &c)
	seen := map[string]bool{}
	for _, s := range Settings {
		for _, name := range []string{"--" + s.Flag, "env " + s.Env, "key " + s.Key} {
			if strings.HasSuffix(name, " ") || name == "--" {
				continue
			}
			if seen[name] {
				t.Errorf("%s appears twice in Settings", name)
			}
			seen[name] = true
		}
		if s.Flag == "" {
			if s.field != nil || s.Env == "" || s.Doc == "" {
				t.Errorf("variable row %+v: want an Env and a Doc and no field", s)
			}
			continue
		}
		f := fs.Lookup(s.Flag)
		if f == nil || s.Usage == "" {
			t.Fatalf("--%s: no flag or no usage", s.Flag)
		}
		if s.Env != "" && !strings.Contains(f.Usage, s.Env) {
			t.Errorf("--%s's help does not name %s: %s", s.Flag, s.Env, f.Usage)
		}
		if s.Key != "" && !strings.Contains(f.Usage, s.Key) {
			t.Errorf("--%s's help does not name config key %s", s.Flag, s.Key)
		}
	}
	for _, args := range [][]string{{"--plugin-path", "a" + string(os.PathListSeparator) + "b", "--viewport", "800x600", "--settle-timeout", "5s", "--max-tabs", "3", "--headless", "--mode", "prod"}} {
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.PluginPath) != 2 || c.PluginPath[1] != "b" || c.Viewport.Width != 800 || c.SettleTimeout.Seconds() != 5 || c.MaxTabs != 3 || !c.Headless || c.Mode != "prod" {
		t.Fatalf("flags parsed to %+v", c)
	}
}
