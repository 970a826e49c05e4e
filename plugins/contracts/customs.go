package contracts

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxArtifactSize skips huge JSON files (Foundry's build-info and the like).
const maxArtifactSize = 16 << 20

// customArtifact is a Foundry or Hardhat artifact found on disk.
type customArtifact struct {
	name string
	path string
	// argCount is the number of constructor inputs in its ABI.
	argCount int
	code     string
	abi      json.RawMessage
}

// artifactFile is the part of a Foundry or Hardhat artifact we read.
// Foundry: {"abi": [...], "bytecode": {"object": "0x..."}}; Hardhat:
// {"contractName": "X", "abi": [...], "bytecode": "0x..."}.
type artifactFile struct {
	ContractName string          `json:"contractName"`
	ABI          json.RawMessage `json:"abi"`
	Bytecode     json.RawMessage `json:"bytecode"`
}

// scanArtifacts finds the deployable artifacts under dirs (relative to
// workspace). The first artifact of a name wins. Unreadable or non-artifact
// JSON files are skipped.
func scanArtifacts(workspace string, dirs []string) map[string]customArtifact {
	found := map[string]customArtifact{}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(workspace, d)
		}
		_ = filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() {
				switch e.Name() {
				case "build-info", "node_modules", "cache", ".git":
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".dbg.json") {
				return nil
			}
			if info, err := e.Info(); err != nil || info.Size() > maxArtifactSize {
				return nil
			}
			if a, ok := readArtifact(path); ok {
				if _, dup := found[a.name]; !dup {
					found[a.name] = a
				}
			}
			return nil
		})
	}
	return found
}

// readArtifact reads one artifact file; ok is false for anything that is
// not an artifact with creation code (interfaces, abstract contracts).
func readArtifact(path string) (customArtifact, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return customArtifact{}, false
	}
	var f artifactFile
	if json.Unmarshal(b, &f) != nil || len(f.Bytecode) == 0 {
		return customArtifact{}, false
	}
	var code string
	if json.Unmarshal(f.Bytecode, &code) != nil {
		var foundry struct {
			Object string `json:"object"`
		}
		if json.Unmarshal(f.Bytecode, &foundry) != nil {
			return customArtifact{}, false
		}
		code = foundry.Object
	}
	if c := strings.TrimPrefix(code, "0x"); c == "" {
		return customArtifact{}, false
	}
	name := f.ContractName
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	return customArtifact{name: name, path: path, argCount: constructorInputs(f.ABI), code: code, abi: f.ABI}, true
}

// constructorInputs counts the constructor's inputs in an ABI.
func constructorInputs(abiJSON json.RawMessage) int {
	var entries []struct {
		Type   string            `json:"type"`
		Inputs []json.RawMessage `json:"inputs"`
	}
	if json.Unmarshal(abiJSON, &entries) != nil {
		return 0
	}
	for _, e := range entries {
		if e.Type == "constructor" {
			return len(e.Inputs)
		}
	}
	return 0
}
