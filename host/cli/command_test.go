package cli

import (
	"strings"
	"testing"
)

// `mmcp help`, `mmcp --help` and `mmcp -h` print the same overview to
// stdout and exit 0: every registered command with its one line, and the
// global flags.
func TestHelpOverview(t *testing.T) {
	var first string
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"-help"}, {"--headless", "help"}} {
		code, out, errs := runMain(t, args...)
		if code != 0 || errs != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errs)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Fatalf("%q printed another overview:\n%s", args, out)
		}
	}
	for _, c := range sortedCommands() {
		if !strings.Contains(first, "\n  "+c.Name) || !strings.Contains(first, c.Short) {
			t.Errorf("overview misses %q (%s):\n%s", c.Name, c.Short, first)
		}
	}
	for _, want := range []string{"usage: mmcp [command] [flags]", "-settle-timeout", "-repo", "serves MCP over stdio"} {
		if !strings.Contains(first, want) {
			t.Errorf("overview misses %q", want)
		}
	}
}

// `mmcp help CMD` and `mmcp CMD --help` print the command's usage and its
// own flags to stdout and exit 0; a family's first word lists its members.
func TestHelpCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"help", "call"}, []string{"usage: mmcp [flags] call [--session ID]", "-log", "-sidecars", "-session"}},
		{[]string{"call", "--help"}, []string{"usage: mmcp [flags] call [--session ID]", "-log"}},
		{[]string{"help", "test", "merge-reports"}, []string{"usage: mmcp [flags] test merge-reports", "-junit"}},
		{[]string{"test", "merge-reports", "-h"}, []string{"usage: mmcp [flags] test merge-reports", "-junit"}},
		{[]string{"help", "knowledge"}, []string{"knowledge migrate", "knowledge pull [--out DIR]", "knowledge push [DIR]"}},
		{[]string{"serve", "--help"}, []string{"usage: mmcp [flags] serve [--http [addr]]"}},
		{[]string{"help", "version"}, []string{"usage: mmcp [flags] version\n"}},
	} {
		code, out, errs := runMain(t, tc.args...)
		if code != 0 || errs != "" {
			t.Errorf("%q: exit %d, stderr %q", tc.args, code, errs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q: output misses %q:\n%s", tc.args, w, out)
			}
		}
	}
}

// A misused or unknown command exits 2 with the usage on stderr and
// nothing on stdout.
func TestCommandMisuse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"help", "nope"}, `unknown command "nope"`},
		{[]string{"flow"}, "usage: mmcp [flags] flow export SESSION_ID"},
		{[]string{"flow", "import"}, "usage: mmcp [flags] flow export SESSION_ID"},
		{[]string{"call"}, "usage: mmcp [flags] call"},
		{[]string{"tools", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"visual", "approve"}, "usage: mmcp [flags] visual approve NAME"},
		{[]string{"version", "extra"}, "usage: mmcp [flags] version"},
		{[]string{"serve", "--port"}, `unknown argument "--port"`},
	} {
		code, out, errs := runMain(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}
