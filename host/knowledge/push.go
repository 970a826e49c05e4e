package knowledge

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Push sends every session.json and step record under root (a knowledge
// root, <artifacts>/llm-knowledge) to sh, session by session, the steps in
// file name order. Sending twice stores nothing twice. It returns how many
// files it sent.
func Push(ctx context.Context, root string, sh Shared) (int, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return 0, knowledgeErr("read knowledge root", err)
	}
	n := 0
	var batch []Item
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := sh.Put(ctx, batch); err != nil {
			return err
		}
		n += len(batch)
		batch = batch[:0]
		return nil
	}
	for _, e := range ents {
		id := e.Name()
		if !e.IsDir() || !ValidSessionID(id) {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(root, id, "session.json")); err == nil {
			batch = append(batch, Item{SessionID: id, Data: b})
		}
		steps, _ := os.ReadDir(filepath.Join(root, id, "steps"))
		names := make([]string, 0, len(steps))
		for _, st := range steps {
			if st.Type().IsRegular() && strings.HasSuffix(st.Name(), ".json") && !strings.HasPrefix(st.Name(), ".") {
				names = append(names, st.Name())
			}
		}
		slices.Sort(names)
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(root, id, "steps", name))
			if err != nil {
				continue
			}
			batch = append(batch, Item{SessionID: id, StepID: name, Data: b})
			if len(batch) >= outboxBatch {
				if err := flush(); err != nil {
					return n, err
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
	}
	return n, flush()
}
