package mockserver

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Sources of mocks.
const (
	sourceTool    = "tool"
	sourceDefault = "default"
)

// defaultFiles are the built-in mocks: the external endpoints a MetaMask
// test build calls at start-up, answered the way MetaMask's own end-to-end
// mocks (test/e2e/mock-e2e.js) answer them.
//
//go:embed defaults/*.json
var defaultFiles embed.FS

// loadMocks reads the default mocks (unless defaults is false), then every
// *.json file of dirs in name order. A later file's mock overrides an
// earlier one. A bad file is MM_INVALID_CONFIG naming it.
func loadMocks(defaults bool, dirs []string) ([]*mock, error) {
	var out []*mock
	if defaults {
		names, _ := fs.Glob(defaultFiles, "defaults/*.json")
		sort.Strings(names)
		for _, n := range names {
			b, err := defaultFiles.ReadFile(n)
			if err != nil {
				return nil, err
			}
			ms, err := parseMockFile(b, sourceDefault, strings.TrimSuffix(path.Base(n), ".json"))
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
		}
	}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, sdk.Errorf(sdk.CodeInvalidConfig, "mock file %s: %w", f, err)
			}
			ms, err := parseMockFile(b, f, strings.TrimSuffix(filepath.Base(f), ".json"))
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
		}
	}
	return out, nil
}

// parseMockFile parses a mock file: a JSON array of mocks. A mock without
// an id gets <name>:<index>.
func parseMockFile(b []byte, source, name string) ([]*mock, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ms []Mock
	if err := dec.Decode(&ms); err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidConfig, "mock file %s: %w (it must be a JSON array of mocks)", source, err).
			WithDetails(map[string]any{"file": source})
	}
	out := make([]*mock, 0, len(ms))
	for i, m := range ms {
		if m.ID == "" {
			m.ID = fmt.Sprintf("%s:%d", name, i)
		}
		c, err := compile(m, source)
		if err != nil {
			e := sdk.AsError(err)
			return nil, sdk.Errorf(sdk.CodeInvalidConfig, "mock file %s, mock %d: %s", source, i, e.Message).
				WithDetails(map[string]any{"file": source, "index": i, "field": e.Details["field"]})
		}
		out = append(out, c)
	}
	return out, nil
}
