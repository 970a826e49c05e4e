package builtin

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the module root, seen from this package's directory.
const repoRoot = "../.."

// maxPathFiles is the most Go files a tool's path may cross (issue 30).
const maxPathFiles = 8

// pluginToolsRow names the row of the plugins' own tools.
const pluginToolsRow = "<plugin>_<tool>"

// pathRow is one row of docs/ARCHITECTURE.md's tool-paths table.
type pathRow struct {
	tool, end string
	count     int
	files     []string
}

// toolPathRows reads the table between the tool-paths markers.
func toolPathRows(t *testing.T) []pathRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "<!-- tool-paths:begin -->")
	end := strings.Index(doc, "<!-- tool-paths:end -->")
	if start < 0 || end < start {
		t.Fatal("docs/ARCHITECTURE.md has no <!-- tool-paths:begin --> ... <!-- tool-paths:end --> table")
	}
	var rows []pathRow
	for _, line := range strings.Split(doc[start:end], "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 4 || !strings.HasPrefix(strings.TrimSpace(cells[3]), "host/") {
			continue // the marker, the header and its rule
		}
		n, err := strconv.Atoi(strings.TrimSpace(cells[2]))
		if err != nil {
			t.Errorf("row %q: files %q is not a number", line, cells[2])
		}
		r := pathRow{tool: strings.Trim(strings.TrimSpace(cells[0]), "`"), end: strings.TrimSpace(cells[1]), count: n}
		for _, f := range strings.Split(cells[3], "→") {
			r.files = append(r.files, strings.TrimSpace(f))
		}
		rows = append(rows, r)
	}
	return rows
}

func argString(c *ast.CallExpr, i int) (string, bool) {
	if len(c.Args) <= i {
		return "", false
	}
	lit, ok := c.Args[i].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// registeredTools are the names of the host's own tools.
func registeredTools(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, tl := range builtinTools(t) {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	return names
}

// TestToolPathsTable holds docs/ARCHITECTURE.md's per-tool paths against
// the code: a row for every registered tool, files that exist, at most
// maxPathFiles of them, the registering file where the row enters
// host/builtin, every file reached by a call from an earlier one, and an
// end that fits the row's kind. It reads the code's syntax, not its
// types: a call is matched by name.
func TestToolPathsTable(t *testing.T) {
	rows := toolPathRows(t)
	if len(rows) == 0 {
		t.Fatal("the tool-paths table has no rows")
	}
	byTool := map[string]pathRow{}
	for _, r := range rows {
		if _, dup := byTool[r.tool]; dup {
			t.Errorf("%s: two rows", r.tool)
		}
		byTool[r.tool] = r
	}
	for _, name := range registeredTools(t) {
		if _, ok := byTool[name]; !ok {
			t.Errorf("%s is registered and has no row in docs/ARCHITECTURE.md's tool-paths table", name)
		}
	}
	for _, name := range append(registeredTools(t), pluginToolsRow) {
		delete(byTool, name)
	}
	for name := range byTool {
		t.Errorf("the tool-paths table has a row for %s, which is not registered", name)
	}

	g := loadGraph(t, rowDirs(rows))
	for _, r := range rows {
		if len(r.files) > maxPathFiles {
			t.Errorf("%s: %d files on its path, more than %d", r.tool, len(r.files), maxPathFiles)
		}
		if r.count != len(r.files) {
			t.Errorf("%s: the row says %d files and lists %d", r.tool, r.count, len(r.files))
		}
		seen := map[string]bool{}
		for _, f := range r.files {
			if seen[f] {
				t.Errorf("%s: %s twice", r.tool, f)
			}
			seen[f] = true
			if _, err := os.Stat(filepath.Join(repoRoot, f)); err != nil {
				t.Errorf("%s: %s does not exist", r.tool, f)
			}
		}
		if err := walkPath(g, r); err != nil {
			t.Errorf("%s: %v", r.tool, err)
		}
	}
}

// rowDirs are the package directories the rows cross.
func rowDirs(rows []pathRow) []string {
	seen := map[string]bool{}
	var dirs []string
	for _, r := range rows {
		for _, f := range r.files {
			if d := filepath.ToSlash(filepath.Dir(f)); !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	sort.Strings(dirs)
	return dirs
}

// walkPath follows a row through the type-checked code (callgraph_test.go)
// from the MCP handler, host/tools/mcp.go's mcpHandler: at each hop, the
// functions of the path in one file (with the functions of that file
// they call) call a function or method the next file defines, and those
// are the path's functions in the next file. The runner calls the tool's
// Handler field: host/tools/tool.go's Add wrapper, which calls the
// handler the row's host/builtin file registers for the tool (add(g,
// "<base>", ...)), or run_steps' (host/tools/batch.go's RunSteps), or a
// plugin tool's (host/builtin/plugin.go). The path's functions in the
// row's last file call rod (a cdp row) or an sdk capability or
// pluginhost (a plugin row); a store row ends in host/knowledge.
func walkPath(g *graph, r pathRow) error {
	if r.files[0] != "host/tools/mcp.go" {
		return fmt.Errorf("the path starts at %s, not at the MCP handler (host/tools/mcp.go)", r.files[0])
	}
	first := g.files[r.files[0]]
	var path []*types.Func
	for name, n := range first.funcs {
		if strings.HasSuffix(name, ".mcpHandler") {
			path = first.closure(n)
		}
	}
	for i := 1; i < len(r.files); i++ {
		prev, next := r.files[i-1], r.files[i]
		nf := g.files[next]
		if nf == nil {
			return fmt.Errorf("%s is not a Go file of the module", next)
		}
		var found []*fnNode
		switch prev {
		case "host/tools/runner.go": // c.Tool.Handler(ctx, c)
			switch {
			case next == "host/tools/batch.go" && r.tool == "mm_run_steps":
				found = append(found, nf.handlers["RunSteps"])
			case next == "host/tools/tool.go" && r.tool != "mm_run_steps" && r.tool != pluginToolsRow,
				next == "host/builtin/plugin.go" && r.tool == pluginToolsRow:
				found = append(found, nf.handlers["Handler"])
			}
		case "host/tools/tool.go": // Add's wrapper calls the registered handler
			found = append(found, nf.handlers["add:"+strings.TrimPrefix(r.tool, "mm_")])
		default:
			for _, c := range path {
				if n, ok := nf.funcs[c.FullName()]; ok {
					found = append(found, n)
				}
			}
		}
		if len(found) == 0 || found[0] == nil {
			return fmt.Errorf("nothing on the path in %s calls a function %s defines", prev, next)
		}
		path = nf.closure(found...)
	}
	last := r.files[len(r.files)-1]
	calls := func(prefixes ...string) bool {
		for _, c := range path {
			for _, p := range prefixes {
				if c.Pkg() != nil && (c.Pkg().Path() == p || strings.HasPrefix(c.Pkg().Path(), p+"/")) {
					return true
				}
			}
		}
		return false
	}
	switch r.end {
	case "cdp":
		if !calls("github.com/go-rod/rod") {
			return fmt.Errorf("a cdp row ends in %s, whose functions on the path call no rod function", last)
		}
	case "plugin":
		if !calls(module + "/sdk") {
			return fmt.Errorf("a plugin row ends in %s, whose functions on the path call no sdk capability", last)
		}
	case "store":
		if !strings.HasPrefix(last, "host/knowledge/") {
			return fmt.Errorf("a store row ends in %s, outside host/knowledge", last)
		}
	case "host":
	default:
		return fmt.Errorf("end %q is none of cdp, plugin, store, host", r.end)
	}
	return nil
}

// TestToolPathsCheckCatchesEdits holds walkPath to its claim: in every
// row, dropping a file between the MCP handler and the row's end, or
// swapping a file after the handler and before the end for a file of
// another row, breaks the path. Swapping the last file for another is
// caught unless the previous file also calls into the other one and the
// other one also makes the row's kind of call (then both are true
// paths); those are counted.
func TestToolPathsCheckCatchesEdits(t *testing.T) {
	rows := toolPathRows(t)
	g := loadGraph(t, rowDirs(rows))
	var all []string
	seen := map[string]bool{}
	for _, r := range rows {
		for _, f := range r.files {
			if !seen[f] {
				seen[f] = true
				all = append(all, f)
			}
		}
	}
	sort.Strings(all)
	drops, swaps, lastSwaps, otherEnds := 0, 0, 0, 0
	for _, r := range rows {
		for i := 1; i < len(r.files)-1; i++ {
			edited := r
			edited.files = append(append([]string{}, r.files[:i]...), r.files[i+1:]...)
			drops++
			if walkPath(g, edited) == nil {
				t.Errorf("%s: the path still holds without %s", r.tool, r.files[i])
			}
		}
		for i := 1; i < len(r.files); i++ {
			for _, other := range all {
				if slices.Contains(r.files, other) {
					continue
				}
				edited := r
				edited.files = slices.Clone(r.files)
				edited.files[i] = other
				holds := walkPath(g, edited) == nil
				if i == len(r.files)-1 {
					lastSwaps++
					if holds {
						otherEnds++
					}
					continue
				}
				swaps++
				if holds {
					t.Errorf("%s: the path still holds with %s in place of %s", r.tool, other, r.files[i])
				}
			}
		}
	}
	t.Logf("%d rows: %d drops and %d swaps before the end each break the path; %d of %d swaps of the last file end in another true path", len(rows), drops, swaps, otherEnds, lastSwaps)
}
