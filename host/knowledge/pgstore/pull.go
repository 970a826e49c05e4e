package pgstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmcp-dev/mmcp/host/knowledge"
)

// PullFilter selects the sessions Pull brings back.
type PullFilter struct {
	// SessionID picks one session.
	SessionID string
	// FlowTag, Branch and SinceHours narrow the sessions as the knowledge
	// tools' filters do.
	FlowTag    string
	Branch     string
	SinceHours int
	// Limit caps the sessions, newest first (0: all).
	Limit int
}

// Pull writes the selected sessions of the store's repository into root
// (a knowledge root): session.json and steps/<step id>. Files already
// there are kept, so pulling twice writes nothing twice. It returns the
// sessions and files written.
func (s *Store) Pull(ctx context.Context, root string, f PullFilter) (sessions, files int, err error) {
	var a args
	scope := knowledge.AllScope
	if f.SessionID != "" {
		scope = knowledge.SessionScope(f.SessionID)
	}
	conds, _, err := s.sessionConds(&a, scope, "", &knowledge.Filters{FlowTag: f.FlowTag, GitBranch: f.Branch, SinceHours: f.SinceHours}, s.now())
	if err != nil {
		return 0, 0, err
	}
	sql := `SELECT se.session_id, se.meta FROM sessions se WHERE ` + strings.Join(conds, " AND ") +
		` ORDER BY COALESCE(se.meta_created_at, se.first_step_at) DESC NULLS LAST, se.session_id`
	if f.Limit > 0 {
		sql += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := s.pool.Query(ctx, sql, a...)
	if err != nil {
		return 0, 0, queryErr(err)
	}
	type sess struct {
		id   string
		meta []byte
	}
	var list []sess
	for rows.Next() {
		var x sess
		if err := rows.Scan(&x.id, &x.meta); err != nil {
			rows.Close()
			return 0, 0, queryErr(err)
		}
		list = append(list, x)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, queryErr(err)
	}
	for _, x := range list {
		if !knowledge.ValidSessionID(x.id) {
			continue
		}
		dir := filepath.Join(root, x.id)
		if err := os.MkdirAll(filepath.Join(dir, "steps"), 0o700); err != nil {
			return sessions, files, err
		}
		sessions++
		if x.meta != nil {
			n, err := writeNew(filepath.Join(dir, "session.json"), x.meta)
			if err != nil {
				return sessions, files, err
			}
			files += n
		}
		rows, err := s.pool.Query(ctx, `SELECT step_id, record FROM steps WHERE session_id = $1 ORDER BY ts, step_id`, x.id)
		if err != nil {
			return sessions, files, queryErr(err)
		}
		for rows.Next() {
			var id string
			var rec []byte
			if err := rows.Scan(&id, &rec); err != nil {
				rows.Close()
				return sessions, files, queryErr(err)
			}
			if strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") || !strings.HasSuffix(id, ".json") {
				continue // not a file name this store writes
			}
			n, err := writeNew(filepath.Join(dir, "steps", id), rec)
			if err != nil {
				rows.Close()
				return sessions, files, err
			}
			files += n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return sessions, files, queryErr(err)
		}
	}
	return sessions, files, nil
}

// writeNew writes b to path unless it exists; it reports 1 when written.
func writeNew(path string, b []byte) (int, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if os.IsExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return 0, err
	}
	return 1, f.Close()
}
