package codegen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// WriteIfChanged writes content to path unless the file already holds the
// same content apart from its "// Generated:" line, so rerunning the
// generator on an unchanged registry leaves the file (and git) alone; the
// caller then prints "No changes.". It reports whether it wrote.
func WriteIfChanged(path string, content []byte) (changed bool, err error) {
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, fmt.Errorf("read %s: %w", path, err)
	case bytes.Equal(withoutGenerated(old), withoutGenerated(content)):
		return false, nil
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}

// withoutGenerated drops the lines starting with "// Generated: ".
func withoutGenerated(b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	out := make([]byte, 0, len(b))
	for _, l := range lines {
		if bytes.HasPrefix(l, []byte(generatedPrefix)) {
			continue
		}
		out = append(out, l...)
	}
	return out
}
