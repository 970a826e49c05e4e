package visual

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mmcp-dev/mmcp/sdk"
)

// maxPNGBytes bounds a baseline or kept screenshot read from disk: a
// full-page capture of a long page is a few MiB.
const maxPNGBytes = 64 << 20

// readRegular reads path when it is a regular file (a symbolic link, a
// FIFO or a device is not read: what) of at most maxPNGBytes. A missing
// file is fs.ErrNotExist.
func readRegular(path, what string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(fi, path, what); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPNGBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxPNGBytes {
		return nil, sdk.Errorf(sdk.CodeBaselineInvalid, "%s %s is over %d MiB", what, path, maxPNGBytes>>20)
	}
	return b, nil
}

// regular refuses anything but a regular file (MM_BASELINE_INVALID).
func regular(fi os.FileInfo, path, what string) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	kind := "not a regular file"
	if fi.Mode()&os.ModeSymlink != 0 {
		kind = "a symbolic link"
	}
	return sdk.Errorf(sdk.CodeBaselineInvalid, "%s %s is %s: mmcp neither follows nor replaces it; remove it and check again", what, path, kind).
		WithDetails(map[string]any{"path": path})
}

// perms are the modes of a file written here and of its folder.
type perms struct{ dir, file os.FileMode }

var (
	// private is the artifacts' mode (<artifacts>/visual: the last
	// screenshots, diff images and results), as every artifact mmcp writes.
	private = perms{dir: 0o700, file: 0o600}
	// committed is the baselines' mode: files of the workspace, committed
	// with the code and read by reviewers and CI.
	committed = perms{dir: 0o755, file: 0o644}
)

// writeRegular writes b to path as a new regular file of mode m.file (in
// a folder of mode m.dir when it makes it; a private folder is set to
// m.dir as well): through a temporary file renamed over it, so a link
// there is never followed. An existing path that is not a regular file is
// refused.
func writeRegular(path string, b []byte, what string, m perms) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, m.dir); err != nil {
		return err
	}
	if m == private {
		if err := os.Chmod(dir, m.dir); err != nil {
			return err
		}
	}
	if fi, err := os.Lstat(path); err == nil {
		if err := regular(fi, path, what); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, m.file)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
