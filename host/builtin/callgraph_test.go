package builtin

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The path check's call graph: the packages a row crosses, type-checked
// from source (their imports from the build's export data, go list
// -export), so that every call names the function or method it calls,
// whatever its receiver's name, as the compiler sees it.

// module is the module path.
const module = "github.com/mmcp-dev/mmcp"

// goFile is what the path check knows of one Go file: the functions it
// defines and the calls in each.
type goFile struct {
	path  string
	funcs map[string]*fnNode // by types.Func.FullName, methods and generic functions by their origin
	// handlers are the func literals the file hands the runner as a
	// tool's Handler: add(g, "<base>", ..., func...) by base,
	// "Handler" for a literal under a Handler field (Handler: func...,
	// x.Handler = func...), and the funcs named by anchors (RunSteps).
	handlers map[string]*fnNode
}

// fnNode is one function body: what it calls.
type fnNode struct {
	file  string
	calls []*types.Func
}

// graph is the type-checked packages, by file.
type graph struct {
	files map[string]*goFile
}

var (
	graphOnce sync.Once
	theGraph  *graph
	graphErr  error
)

// loadGraph type-checks the packages of dirs (directories from the module
// root) once per test binary.
func loadGraph(t *testing.T, dirs []string) *graph {
	t.Helper()
	graphOnce.Do(func() { theGraph, graphErr = buildGraph(dirs) })
	if graphErr != nil {
		t.Fatal(graphErr)
	}
	return theGraph
}

func buildGraph(dirs []string) (*graph, error) {
	exports, err := exportData()
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	g := &graph{files: map[string]*goFile{}}
	for _, dir := range dirs {
		if err := g.check(fset, imp, dir); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// exportData maps each package the module builds to its export data.
func exportData() (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}} {{.Export}}{{end}}", "./...")
	cmd.Dir = repoRoot
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v\n%s", err, stderr.String())
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), " "); ok {
			m[path] = file
		}
	}
	return m, sc.Err()
}

// check type-checks the package in dir and adds its files.
func (g *graph) check(fset *token.FileSet, imp types.Importer, dir string) error {
	matches, err := filepath.Glob(filepath.Join(repoRoot, dir, "*.go"))
	if err != nil {
		return err
	}
	var files []*ast.File
	for _, m := range matches {
		if ok, err := build.Default.MatchFile(filepath.Dir(m), filepath.Base(m)); err != nil || !ok || strings.HasSuffix(m, "_test.go") {
			continue // a test, or another platform's file
		}
		f, err := parser.ParseFile(fset, m, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Instances: map[*ast.Ident]types.Instance{}}
	conf := types.Config{Importer: imp, Error: func(error) {}}
	if _, err := conf.Check(module+"/"+dir, fset, files, info); err != nil {
		return fmt.Errorf("type-checking %s: %v", dir, err)
	}
	for _, f := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(fset.Position(f.Pos()).Filename, filepath.Clean(repoRoot)+"/"))
		if abs, err := filepath.Abs(fset.Position(f.Pos()).Filename); err == nil {
			if root, err := filepath.Abs(repoRoot); err == nil {
				rel = filepath.ToSlash(strings.TrimPrefix(abs, root+"/"))
			}
		}
		gf := &goFile{path: rel, funcs: map[string]*fnNode{}, handlers: map[string]*fnNode{}}
		node := func(body ast.Node) *fnNode { return &fnNode{file: rel, calls: callsIn(info, body)} }
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
				gf.funcs[fn.FullName()] = node(fd.Body)
				if fd.Recv == nil {
					gf.handlers[fd.Name.Name] = gf.funcs[fn.FullName()]
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if key, ok := n.Key.(*ast.Ident); ok && key.Name == "Handler" {
					if lit, ok := n.Value.(*ast.FuncLit); ok {
						gf.handlers["Handler"] = node(lit.Body)
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "Handler" && i < len(n.Rhs) {
						if lit, ok := n.Rhs[i].(*ast.FuncLit); ok {
							gf.handlers["Handler"] = node(lit.Body)
						}
					}
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "add" {
					if base, ok := argString(n, 1); ok {
						if lit, ok := n.Args[len(n.Args)-1].(*ast.FuncLit); ok {
							gf.handlers["add:"+base] = node(lit.Body)
						}
					}
				}
			}
			return true
		})
		g.files[rel] = gf
	}
	return nil
}

// callsIn lists the functions and methods body calls (its func literals'
// calls included), generic ones by their origin.
func callsIn(info *types.Info, body ast.Node) []*types.Func {
	var out []*types.Func
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := ast.Unparen(c.Fun)
		switch f := fun.(type) {
		case *ast.IndexExpr:
			fun = f.X
		case *ast.IndexListExpr:
			fun = f.X
		}
		var id *ast.Ident
		switch f := fun.(type) {
		case *ast.Ident:
			id = f
		case *ast.SelectorExpr:
			id = f.Sel
		}
		if id == nil {
			return true
		}
		if fn, ok := info.Uses[id].(*types.Func); ok {
			out = append(out, fn.Origin())
		}
		return true
	})
	return out
}

// closure is the calls of fns and of the functions of the same file they
// call, transitively.
func (f *goFile) closure(fns ...*fnNode) []*types.Func {
	var out []*types.Func
	seen := map[*fnNode]bool{}
	queue := fns
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == nil || seen[n] {
			continue
		}
		seen[n] = true
		for _, c := range n.calls {
			out = append(out, c)
			if same, ok := f.funcs[c.FullName()]; ok {
				queue = append(queue, same)
			}
		}
	}
	return out
}
