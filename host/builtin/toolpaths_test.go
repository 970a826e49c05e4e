package builtin

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
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

// goFile is what the path check needs of one Go file.
type goFile struct {
	calls   map[string]bool // names called: f(...), x.f(...)
	defines map[string]bool // top-level functions and methods, struct fields
	imports map[string]bool
	adds    []string // tools registered here with add(g, "<base>", ...)
}

func parseGoFile(t *testing.T, path string) goFile {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(repoRoot, path), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	g := goFile{calls: map[string]bool{}, defines: map[string]bool{}, imports: map[string]bool{}}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		g.imports[p] = true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			g.defines[n.Name.Name] = true
		case *ast.StructType:
			for _, fld := range n.Fields.List {
				for _, name := range fld.Names {
					g.defines[name.Name] = true
				}
			}
		case *ast.CallExpr:
			switch fn := n.Fun.(type) {
			case *ast.Ident:
				g.calls[fn.Name] = true
				if lit, ok := argString(n, 1); ok && fn.Name == "add" {
					g.adds = append(g.adds, lit)
				}
			case *ast.SelectorExpr:
				g.calls[fn.Sel.Name] = true
			case *ast.IndexListExpr, *ast.IndexExpr: // add[In](...), a generic call
			}
		}
		return true
	})
	return g
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

var builtinFile = regexp.MustCompile(`^host/builtin/[a-z_]+\.go$`)

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

	files := map[string]goFile{}
	registeredIn := map[string]string{} // tool base -> host/builtin file
	for _, r := range rows {
		for _, f := range r.files {
			if _, ok := files[f]; ok {
				continue
			}
			if _, err := os.Stat(filepath.Join(repoRoot, f)); err != nil {
				t.Errorf("%s: %s does not exist", r.tool, f)
				continue
			}
			files[f] = parseGoFile(t, f)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(repoRoot, "host/builtin/*.go"))
	for _, m := range matches {
		rel := filepath.ToSlash(strings.TrimPrefix(m, repoRoot+"/"))
		if strings.HasSuffix(rel, "_test.go") {
			continue
		}
		for _, base := range parseGoFile(t, rel).adds {
			registeredIn["mm_"+base] = rel
		}
	}

	for _, r := range rows {
		if len(r.files) > maxPathFiles {
			t.Errorf("%s: %d files on its path, more than %d", r.tool, len(r.files), maxPathFiles)
		}
		if r.count != len(r.files) {
			t.Errorf("%s: the row says %d files and lists %d", r.tool, r.count, len(r.files))
		}
		if r.files[0] != "host/tools/mcp.go" {
			t.Errorf("%s: the path starts at %s, not at the MCP handler (host/tools/mcp.go)", r.tool, r.files[0])
		}
		seen := map[string]bool{}
		for _, f := range r.files {
			if seen[f] {
				t.Errorf("%s: %s twice", r.tool, f)
			}
			seen[f] = true
		}
		if want, ok := registeredIn[r.tool]; ok {
			for _, f := range r.files {
				if builtinFile.MatchString(f) {
					if f != want {
						t.Errorf("%s: the row enters host/builtin at %s; the tool is registered in %s", r.tool, f, want)
					}
					break
				}
			}
		}
		for i := 1; i < len(r.files); i++ {
			if !reached(files, r.files[:i], r.files[i]) {
				t.Errorf("%s: no file before %s calls a function, method or field it defines", r.tool, r.files[i])
			}
		}
		last := r.files[len(r.files)-1]
		lf := files[last]
		switch r.end {
		case "cdp":
			if !lf.imports["github.com/go-rod/rod"] && !lf.imports["github.com/go-rod/rod/lib/proto"] && !lf.imports["github.com/go-rod/rod/lib/cdp"] {
				t.Errorf("%s: a cdp row ends in %s, which does not use rod", r.tool, last)
			}
		case "plugin":
			if !lf.imports["github.com/mmcp-dev/mmcp/sdk"] && !lf.imports["github.com/mmcp-dev/mmcp/sdk/pluginhost"] && !strings.HasPrefix(last, "sdk/pluginhost/") {
				t.Errorf("%s: a plugin row ends in %s, which calls no sdk capability", r.tool, last)
			}
		case "store":
			if !strings.HasPrefix(last, "host/knowledge/") {
				t.Errorf("%s: a store row ends in %s, outside host/knowledge", r.tool, last)
			}
		case "host":
		default:
			t.Errorf("%s: end %q is none of cdp, plugin, store, host", r.tool, r.end)
		}
	}
}

// reached reports whether a file in before calls a name next defines, or
// hands the call to next as a tool's handler: the runner calls Tool.Handler
// (host/tools/tool.go), whose tools.Add wrapper calls the handler that a
// host/builtin file registers; the runner calls run_steps' handler
// (host/tools/batch.go) the same way.
func reached(files map[string]goFile, before []string, next string) bool {
	nf := files[next]
	for _, b := range before {
		for name := range nf.defines {
			if files[b].calls[name] {
				return true
			}
		}
		if b == "host/tools/runner.go" && (next == "host/tools/batch.go" || next == "host/builtin/plugin.go") {
			return true
		}
		if b == "host/tools/tool.go" && builtinFile.MatchString(next) && len(nf.adds) > 0 {
			return true
		}
	}
	return false
}
