package flows

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Files resolves the flow files and hand-off folders a caller of
// mm_flow_run names, and the repaired flow it writes: a relative path is
// taken against the workspace (the process's working directory when the
// host has none); for a remote client (Confined: an HTTP client of mmcp
// serve --http) a path must stay inside the workspace once its symlinks
// are resolved, else MM_PATH_OUTSIDE_WORKSPACE.
type Files struct {
	Workspace string
	Confined  bool
}

// Resolve is path (what: "flow file", "hand-off folder" ...) as the
// caller may use it.
func (fs Files) Resolve(path, what string) (string, error) {
	if path == "" {
		return "", sdk.Errorf(sdk.CodeInvalidInput, "no %s given", what)
	}
	if !filepath.IsAbs(path) && fs.Workspace != "" {
		path = filepath.Join(fs.Workspace, path)
	}
	path = filepath.Clean(path)
	return path, fs.Check(path, what)
}

// Check refuses, for a confined caller, a path outside the workspace:
// lexically, or through a symlink (of the path or of a folder on it) that
// leads out. A path that does not exist yet is judged by its folder.
func (fs Files) Check(path, what string) error {
	if !fs.Confined {
		return nil
	}
	if fs.Workspace == "" {
		return sdk.Errorf(sdk.CodeNoWorkspace, "this host has no workspace, so a remote client cannot name a %s (%s): start mmcp serve --http with --repo, put the file in it and give its path relative to the workspace, or give the flow inline (flow)", what, path)
	}
	root, err := filepath.EvalSymlinks(fs.Workspace)
	if err != nil {
		return sdk.Errorf(sdk.CodeNoWorkspace, "the workspace %s: %v", fs.Workspace, err)
	}
	real, err := realPath(path)
	if err != nil {
		return sdk.Errorf(sdk.CodeInvalidInput, "%s %s: %v", what, path, err)
	}
	if !inside(root, real) {
		return outside(path, what, fs.Workspace, real)
	}
	return nil
}

// realPath is path with its symlinks resolved, a dangling one's too; of a
// path that does not exist, its nearest existing folder's, the rest
// joined as written.
func realPath(path string) (string, error) {
	return realPathN(path, 0)
}

// maxLinks bounds the symlinks realPath follows (a loop).
const maxLinks = 40

func realPathN(path string, links int) (string, error) {
	rest := ""
	for p := path; ; {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// A dangling link: where it leads is where a write goes.
			target, err := os.Readlink(p)
			if err != nil {
				return "", err
			}
			if links >= maxLinks {
				return "", errors.New("too many links")
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			return realPathN(filepath.Join(target, rest), links+1)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// inside says whether path is dir or under it (both cleaned, absolute).
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func outside(path, what, ws, real string) error {
	via := ""
	if real != filepath.Clean(path) {
		via = " (its symlinks lead to " + real + ")"
	}
	return sdk.Errorf(sdk.CodePathOutsideWorkspace, "%s %s is outside the workspace %s%s: over HTTP a client reads and writes flow files only inside the host's workspace; put it there and give its path relative to the workspace", what, path, ws, via).
		WithDetails(map[string]any{"path": path, "workspace": ws})
}
