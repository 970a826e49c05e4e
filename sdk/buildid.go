package sdk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// The bounds of BuildID: a file larger than BuildIDMaxFile is hashed by
// its size and modification time only, no more than BuildIDMaxBytes are
// read in all, and the whole hash gives up after BuildIDTimeout.
const (
	BuildIDMaxFile  = 64 << 20
	BuildIDMaxBytes = 1 << 30
	BuildIDTimeout  = 20 * time.Second
)

// BuildID is the content hash of the unpacked extension in dir: SHA-256
// over manifest.json and every .js, .html and .json file (path and
// content), shortened to 16 hex digits. It names which build a step ran on.
//
// Only regular files are read (a symlink is followed to a regular file; a
// link to a device, a FIFO or a socket is skipped, never opened for
// reading), within the bounds above, and ctx cancels it. When it skipped
// files it still answers the id of the rest, with an error that names
// them (a warning for the user); on a timeout or cancel it answers "" and
// the error.
func BuildID(ctx context.Context, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, BuildIDTimeout)
	defer cancel()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e := ctx.Err(); e != nil {
			return e
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".js", ".html", ".json":
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", buildIDErr(dir, err)
	}
	sort.Strings(files)
	h := sha256.New()
	var skipped []string
	budget := int64(BuildIDMaxBytes)
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		_, _ = io.WriteString(h, rel+"\x00")
		n, why, err := hashRegular(ctx, h, p, budget)
		budget -= n
		if err != nil {
			return "", buildIDErr(dir, err)
		}
		if why != "" {
			skipped = append(skipped, rel+" ("+why+")")
		}
	}
	id := hex.EncodeToString(h.Sum(nil))[:16]
	if len(skipped) > 0 {
		const show = 5
		list := skipped
		if len(list) > show {
			list = append(list[:show:show], fmt.Sprintf("and %d more", len(skipped)-show))
		}
		return id, fmt.Errorf("the build id of %s leaves out the content of %s", dir, strings.Join(list, ", "))
	}
	return id, nil
}

func buildIDErr(dir string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("hashing %s for its build id took longer than %s", dir, BuildIDTimeout)
	}
	return fmt.Errorf("hashing %s for its build id: %w", dir, err)
}

// hashRegular writes the content of file p into h when it is a regular
// file (after symlinks) of at most BuildIDMaxFile bytes and budget
// allows; else its size and modification time, or nothing, and why. It
// answers the bytes read; its error is ctx's.
func hashRegular(ctx context.Context, h io.Writer, p string, budget int64) (int64, string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return 0, "unreadable: " + errText(err), nil
	}
	if !st.Mode().IsRegular() {
		return 0, "not a regular file: " + st.Mode().Type().String(), nil
	}
	if st.Size() > BuildIDMaxFile || st.Size() > budget {
		fmt.Fprintf(h, "%d %d\x00", st.Size(), st.ModTime().UnixNano())
		return 0, fmt.Sprintf("%d bytes, over the hash's bound", st.Size()), nil
	}
	// O_NONBLOCK: a file swapped for a FIFO after the Stat does not block
	// the open; the Stat of the open file says what it is.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, "unreadable: " + errText(err), nil
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return 0, "not a regular file", nil
	}
	var n int64
	buf := make([]byte, 256<<10)
	for n <= BuildIDMaxFile {
		if err := ctx.Err(); err != nil {
			return n, "", err
		}
		k, err := f.Read(buf)
		if k > 0 {
			_, _ = h.Write(buf[:k])
			n += int64(k)
		}
		if err == io.EOF {
			return n, "", nil
		}
		if err != nil {
			return n, "unreadable: " + errText(err), nil
		}
	}
	return n, "it grew past the hash's bound", nil
}

// errText is err without the path that the caller names already.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
