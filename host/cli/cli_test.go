package cli

import (
	"flag"
	"io"
	"reflect"
	"testing"
)

func globalFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("mmcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("repo", "", "")
	fs.Bool("headless", false, "")
	fs.Duration("settle-timeout", 0, "")
	return fs
}

// Global flags are taken out wherever they stand; the subcommand keeps its
// own flags and positionals in order.
func TestSplitGlobal(t *testing.T) {
	for _, tc := range []struct {
		args, global, rest []string
	}{
		{[]string{"--repo", "X", "serve", "--http", "--headless"}, []string{"--repo", "X", "--headless"}, []string{"serve", "--http"}},
		{[]string{"serve", "--http", "--headless", "--repo", "X"}, []string{"--headless", "--repo", "X"}, []string{"serve", "--http"}},
		{[]string{"call", "mm_type", `{"text":"--repo"}`, "-repo=Y"}, []string{"-repo=Y"}, []string{"call", "mm_type", `{"text":"--repo"}`}},
		{[]string{"call", "--log", "f.jsonl", "mm_get_state", "-"}, nil, []string{"call", "--log", "f.jsonl", "mm_get_state", "-"}},
		{[]string{"replay", "--", "--repo"}, nil, []string{"replay", "--", "--repo"}},
		{[]string{"--settle-timeout", "5s", "demo"}, []string{"--settle-timeout", "5s"}, []string{"demo"}},
	} {
		g, r := splitGlobal(globalFlags(), tc.args)
		if !reflect.DeepEqual(g, tc.global) || !reflect.DeepEqual(r, tc.rest) {
			t.Errorf("%q: global %q rest %q, want %q %q", tc.args, g, r, tc.global, tc.rest)
		}
	}
	// Both orders parse to the same values.
	for _, args := range [][]string{{"--repo", "X", "serve", "--http", "--headless"}, {"serve", "--http", "--headless", "--repo", "X"}} {
		fs := globalFlags()
		g, _ := splitGlobal(fs, args)
		if err := fs.Parse(g); err != nil {
			t.Fatal(err)
		}
		if fs.Lookup("repo").Value.String() != "X" || fs.Lookup("headless").Value.String() != "true" {
			t.Errorf("%q parsed to repo %s headless %s", args, fs.Lookup("repo").Value, fs.Lookup("headless").Value)
		}
	}
}
