package checkpoint

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/mmcp-dev/mmcp/sdk"
)

// FileFormat names a checkpoint file (`mmcp checkpoint export`): one
// JSON file holding a checkpoint and its chain's state, to commit beside
// the flows that start from it.
const FileFormat = "mmcp-checkpoint"

// fileDoc is a checkpoint file's content.
type fileDoc struct {
	Format     string          `json:"format"`
	Checkpoint *Checkpoint     `json:"checkpoint"`
	ChainState json.RawMessage `json:"chainState,omitempty"`
}

// WriteFile writes s as a checkpoint file at path (0600, written whole).
// It holds what the checkpoint's folder does: the wallet's vault stays
// encrypted as the wallet keeps it, and no password, recovery phrase or
// private key is in it.
func WriteFile(s *Saved, path string) error {
	b, err := json.MarshalIndent(fileDoc{Format: FileFormat, Checkpoint: s.Checkpoint, ChainState: s.ChainState}, "", "  ")
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return writePrivate(path, append(b, '\n'))
}

// ReadFile reads the checkpoint file at path: MM_INVALID_INPUT when it is
// not one, or of another format version.
func ReadFile(path string) (*Saved, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, sdk.Errorf(sdk.CodeCheckpointNotFound, "no checkpoint file %s", path).WithDetails(map[string]any{"path": path})
	}
	if err != nil {
		return nil, err
	}
	var d fileDoc
	if err := json.Unmarshal(b, &d); err != nil || d.Format != FileFormat || d.Checkpoint == nil {
		why := "its format is not " + FileFormat
		if err != nil {
			why = err.Error()
		}
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "%s is not a checkpoint file (%s): make one with mmcp checkpoint export", path, why).
			WithDetails(map[string]any{"path": path})
	}
	if d.Checkpoint.Version != Version {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "checkpoint file %s has format version %d, this mmcp reads %d: export it again", path, d.Checkpoint.Version, Version).
			WithDetails(map[string]any{"path": path})
	}
	if err := CheckName(d.Checkpoint.Name); err != nil {
		return nil, err
	}
	return &Saved{Checkpoint: d.Checkpoint, ChainState: d.ChainState, From: path}, nil
}

// Import keeps s in st under its name, replacing one of that name.
func (st Store) Import(s *Saved) error {
	var state []byte
	if len(s.ChainState) > 0 {
		state = s.ChainState
	}
	return st.Save(s.Checkpoint, state)
}
