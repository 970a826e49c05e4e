package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// SessionSteps returns the step records of session id in the order they
// were recorded (their file names start with the step's time), with the
// session's metadata (nil when session.json is missing).
func (s *Store) SessionSteps(ctx context.Context, id string) (*SessionMeta, []StepRecord, error) {
	if err := checkSessionID("sessionId", id); err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(s.root, id)
	entries, err := os.ReadDir(filepath.Join(dir, "steps"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, sdk.Errorf(sdk.CodeInvalidInput, "no recorded session %s in %s (mm_knowledge_sessions lists them)", id, s.root)
	}
	if err != nil {
		return nil, nil, knowledgeErr("read steps", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	steps := make([]StepRecord, 0, len(names))
	build := "" // the build id of the steps so far
	for _, n := range names {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		b, err := os.ReadFile(filepath.Join(dir, "steps", n))
		if err != nil {
			return nil, nil, knowledgeErr("read step", err)
		}
		var rec StepRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, nil, fmt.Errorf("step record %s: %w", n, err)
		}
		build = restoreFromLabels(&rec, build)
		restoreConfirmation(&rec)
		steps = append(steps, rec)
	}
	var meta *SessionMeta
	if b, err := os.ReadFile(filepath.Join(dir, "session.json")); err == nil {
		meta, _ = parseMeta(b)
	}
	return meta, steps, nil
}
