package testwallet

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed all:files
var files embed.FS

// FS returns the extension's files (manifest.json at the root).
func FS() fs.FS {
	sub, err := fs.Sub(files, "files")
	if err != nil {
		panic(fmt.Sprintf("testwallet: embedded files missing: %v", err)) // cannot happen: "files" is embedded
	}
	return sub
}

// WriteTo writes the extension into dir (created if missing), overwriting
// files of the same name, so that dir can be passed to Chrome's
// --load-extension flag.
func WriteTo(dir string) error {
	src := FS()
	return fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return fmt.Errorf("testwallet: create %s: %w", dst, err)
			}
			return nil
		}
		b, err := fs.ReadFile(src, path)
		if err != nil {
			return fmt.Errorf("testwallet: read %s: %w", path, err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return fmt.Errorf("testwallet: write %s: %w", dst, err)
		}
		return nil
	})
}
