package checkpoint

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Imported is the folder under a Root that `mmcp checkpoint import`
// keeps checkpoints in, beside the sessions' own.
const Imported = "imported"

// Root is the folder of every session's checkpoints
// (<artifacts>/checkpoints): a session's are in Root/<sessionId>/, the
// imported ones in Root/imported/.
type Root string

// Store is the checkpoints of session id (or Imported).
func (r Root) Store(id string) Store { return Store{Dir: filepath.Join(string(r), id)} }

// Find reads the checkpoint ref names: a checkpoint file (a path to an
// exported file), "<sessionId>/<name>", or a name, which is the newest
// checkpoint of that name among every session's and the imported ones.
// None is MM_CHECKPOINT_NOT_FOUND, listing the names there are.
func (r Root) Find(ref string) (*Saved, error) {
	if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() {
		return ReadFile(ref)
	}
	if id, name, ok := strings.Cut(ref, "/"); ok && !strings.Contains(name, "/") && CheckName(id) == nil {
		return r.Store(id).LoadSaved(name)
	}
	if err := CheckName(ref); err != nil {
		return nil, sdk.Errorf(sdk.CodeCheckpointNotFound, "no checkpoint file %s, and it is not a checkpoint name: give a saved checkpoint's name, <sessionId>/<name>, or an exported file's path", ref).
			WithDetails(map[string]any{"name": ref, "available": r.names()})
	}
	var newest *Saved
	for _, id := range r.ids() {
		st := r.Store(id)
		if _, err := os.Stat(filepath.Join(st.Path(ref), File)); err != nil {
			continue
		}
		c, err := st.Load(ref)
		if err != nil {
			continue
		}
		if newest == nil || c.SavedAt.After(newest.SavedAt) {
			newest = &Saved{Checkpoint: c, From: st.Path(ref)}
		}
	}
	if newest == nil {
		names := r.names()
		return nil, sdk.Errorf(sdk.CodeCheckpointNotFound, "no checkpoint %q: save one with mm_checkpoint_save or import a file with mmcp checkpoint import (saved: %v)", ref, names).
			WithDetails(map[string]any{"name": ref, "available": names})
	}
	state, err := os.ReadFile(filepath.Join(newest.From, ChainFile))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	newest.ChainState = state
	return newest, nil
}

// ids are the folders under r: session ids, and Imported.
func (r Root) ids() []string {
	entries, _ := os.ReadDir(string(r))
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// names are the checkpoint names under r, each once, sorted.
func (r Root) names() []string {
	seen := map[string]bool{}
	out := []string{}
	for _, id := range r.ids() {
		for _, n := range r.Store(id).Names() {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
