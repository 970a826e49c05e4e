// Package checkpoint is the file format of a saved wallet session
// (mm_checkpoint_save): what the session was (the wallet's persisted
// state in the fixture shape the wallet reads at start, the open tabs, the
// mock rules, the deployed contracts, the build and chain it ran on) in
// checkpoint.json, and the chain's full state (anvil_dumpState) in
// chain-state.json beside it. Both are private: files 0600 in folders
// 0700. The wallet's vault stays encrypted as the wallet keeps it; nothing
// else of the files is a secret.
package checkpoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Version is the format's version; a checkpoint of another version is
// refused.
const Version = 1

// The files of one checkpoint, in its folder.
const (
	File      = "checkpoint.json"
	ChainFile = "chain-state.json"
)

// Checkpoint is one saved session.
type Checkpoint struct {
	Version   int       `json:"version"`
	Name      string    `json:"name"`
	SavedAt   time.Time `json:"savedAt"`
	SessionID string    `json:"sessionId"`
	// BuildID is the content hash of the build the session ran
	// (sdk.BuildID), "" when unknown.
	BuildID     string `json:"buildId"`
	ExtensionID string `json:"extensionId"`
	// Chain is the chain at the save, nil when the session had none.
	Chain *Chain `json:"chain,omitempty"`
	// Wallet is the wallet's persisted state, {data, meta}, as the
	// fixture server serves it (the vault encrypted).
	Wallet json.RawMessage `json:"wallet"`
	// Tabs are the session's open tabs in the order they opened.
	Tabs []Tab `json:"tabs"`
	// Screen is the wallet screen shown at the save.
	Screen string `json:"screen,omitempty"`
	// Mocks are the mock server's declared mocks (its mocks tool's
	// answer), nil when no mock server runs.
	Mocks []json.RawMessage `json:"mocks,omitempty"`
	// Contracts are the session's deployments, oldest first.
	Contracts []sdk.Deployment `json:"contracts"`
}

// Chain is the chain a checkpoint was saved on.
type Chain struct {
	ChainID     int64  `json:"chainId"`
	BlockNumber uint64 `json:"blockNumber"`
	// Port is the chain's port, which the wallet state's RPC URL names
	// (0, in a file saved before it was kept: sdk.DefaultAnvilPort).
	Port int `json:"port,omitempty"`
}

// Tab is one open tab.
type Tab struct {
	URL    string `json:"url"`
	Role   string `json:"role"`
	Active bool   `json:"active,omitempty"`
	Home   bool   `json:"home,omitempty"`
}

// Active is the checkpoint's active tab, false when none was.
func (c *Checkpoint) Active() (Tab, bool) {
	for _, t := range c.Tabs {
		if t.Active {
			return t, true
		}
	}
	return Tab{}, false
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckName answers MM_INVALID_INPUT for a name that is not a safe folder
// name (letters, digits, '.', '_', '-'; at most 64; not starting with a
// dot).
func CheckName(name string) error {
	if !namePattern.MatchString(name) {
		return sdk.Errorf(sdk.CodeInvalidInput, "checkpoint name %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", name).
			WithDetails(map[string]any{"field": "name"})
	}
	return nil
}

// Store keeps checkpoints in a folder: <Dir>/<name>/.
type Store struct{ Dir string }

// Path is the folder of checkpoint name.
func (s Store) Path(name string) string { return filepath.Join(s.Dir, name) }

// Save writes c and the chain's state (nil for none) as checkpoint c.Name,
// replacing one of that name. Each file is written whole (a temporary
// file renamed) and private.
func (s Store) Save(c *Checkpoint, chainState []byte) error {
	if err := CheckName(c.Name); err != nil {
		return err
	}
	c.Version = Version
	dir := s.Path(c.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if chainState != nil {
		if err := writePrivate(filepath.Join(dir, ChainFile), chainState); err != nil {
			return err
		}
	} else {
		_ = os.Remove(filepath.Join(dir, ChainFile))
	}
	return writePrivate(filepath.Join(dir, File), append(b, '\n'))
}

// writePrivate writes b to path, 0600, through a temporary file renamed
// over it.
func writePrivate(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// Load reads checkpoint name: MM_CHECKPOINT_NOT_FOUND, listing the saved
// ones, when there is none; MM_INVALID_INPUT for a file of another
// version or that does not decode.
func (s Store) Load(name string) (*Checkpoint, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(s.Path(name), File))
	if os.IsNotExist(err) {
		return nil, s.notFound(name)
	}
	if err != nil {
		return nil, err
	}
	var c Checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "checkpoint %s does not decode: %v; save it again", name, err)
	}
	if c.Version != Version {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "checkpoint %s has format version %d, this mmcp reads %d; save it again", name, c.Version, Version)
	}
	return &c, nil
}

// ChainState is checkpoint name's chain state (anvil_dumpState), nil when
// it has none.
func (s Store) ChainState(name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(s.Path(name), ChainFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	return b, err
}

// Names lists the saved checkpoints, sorted.
func (s Store) Names() []string {
	entries, _ := os.ReadDir(s.Dir)
	names := []string{}
	for _, e := range entries {
		if e.IsDir() && namePattern.MatchString(e.Name()) {
			if _, err := os.Stat(filepath.Join(s.Dir, e.Name(), File)); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names
}

func (s Store) notFound(name string) error {
	names := s.Names()
	hint := "save one with mm_checkpoint_save first"
	if len(names) > 0 {
		hint = fmt.Sprintf("saved: %v", names)
	}
	return sdk.Errorf(sdk.CodeCheckpointNotFound, "no checkpoint %q in this session: %s", name, hint).
		WithDetails(map[string]any{"name": name, "available": names})
}

// Mismatch answers MM_CHECKPOINT_MISMATCH when c was saved on another
// build or chain id than the session's (an empty value on either side is
// not compared), naming the difference.
func Mismatch(c *Checkpoint, buildID string, chainID int64) error {
	if c.BuildID != "" && buildID != "" && c.BuildID != buildID {
		return sdk.Errorf(sdk.CodeCheckpointMismatch, "checkpoint %s was saved on build %s, and the session runs build %s: restore it in a session of that build, or save a new checkpoint on this one", c.Name, c.BuildID, buildID).
			WithDetails(map[string]any{"field": "buildId", "checkpoint": c.BuildID, "session": buildID})
	}
	if c.Chain != nil && chainID != 0 && c.Chain.ChainID != chainID {
		return sdk.Errorf(sdk.CodeCheckpointMismatch, "checkpoint %s was saved on chain id %d, and the session's chain has chain id %d: restore it in a session on chain %d", c.Name, c.Chain.ChainID, chainID, c.Chain.ChainID).
			WithDetails(map[string]any{"field": "chainId", "checkpoint": c.Chain.ChainID, "session": chainID})
	}
	return nil
}
