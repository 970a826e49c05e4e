// Package pgstore is the shared knowledge store on PostgreSQL: sessions
// and steps of many hosts in one database, searched with PostgreSQL's own
// indexes. It implements knowledge.Shared; the answers are rendered by a
// knowledge view over the rows a query selects, so they read exactly like
// the file store's.
package pgstore

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Store is a connection pool to the shared knowledge database, scoped to
// one repository identity.
type Store struct {
	pool *pgxpool.Pool
	repo string
	now  func() time.Time
}

// ParseURL parses a libpq URL or key=value string. The password must come
// from PGPASSWORD or the .pgpass file, never from the URL (it would show in
// process lists and shell history).
func ParseURL(raw string) (*pgxpool.Config, error) {
	if hasPassword(raw) {
		return nil, sdk.Errorf(sdk.CodeInvalidConfig,
			"the knowledge URL holds a password: remove it and set PGPASSWORD or a ~/.pgpass entry instead")
	}
	cfg, err := pgxpool.ParseConfig(raw)
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidConfig, "knowledge URL: %v", redactErr(err))
	}
	// Plan every query for its values: a cached generic plan does not
	// know how common a search word is, and picks the time-ordered scan
	// for a word no step holds (a full scan of the table).
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	// Every query reads a few hundred rows in index order: starting
	// parallel workers costs more than it saves (10 ms and more on a
	// busy server), and a worker cannot stop at the LIMIT as early.
	cfg.ConnConfig.RuntimeParams["max_parallel_workers_per_gather"] = "0"
	return cfg, nil
}

func hasPassword(raw string) bool {
	if strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://") {
		u, err := url.Parse(raw)
		if err != nil {
			return strings.Contains(raw, "@") && strings.Contains(strings.SplitN(raw[strings.Index(raw, "//")+2:], "@", 2)[0], ":")
		}
		_, set := u.User.Password()
		return set || u.Query().Has("password")
	}
	for _, f := range strings.Fields(raw) {
		if strings.HasPrefix(strings.TrimSpace(f), "password") {
			return true
		}
	}
	return false
}

// redactErr keeps a parse error's message short of the URL it quotes.
func redactErr(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "postgres"); i >= 0 {
		return "cannot parse the URL"
	}
	return msg
}

// ErrUnreachable marks an error of a database that did not answer.
var ErrUnreachable = errors.New("knowledge database unreachable")

// Open connects to the database at rawURL for the repository identity
// repo (a git remote URL or a project name) and checks its schema: a
// database not migrated yet, or migrated by a newer mmcp, is an
// MM_KNOWLEDGE_ERROR saying what to do. When the database does not answer
// Open returns the Store (its pool reconnects on use) and an error that
// is ErrUnreachable: a host starts anyway and queues its records.
func Open(ctx context.Context, rawURL, repo string) (*Store, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, unreachable(err)
	}
	s := &Store{pool: pool, repo: repo, now: time.Now}
	v, err := version(ctx, pool)
	if err != nil {
		return s, unreachable(err)
	}
	if err := checkVersion(v); err != nil {
		pool.Close()
		return nil, err
	}
	if v < SchemaVersion() {
		pool.Close()
		return nil, needMigrate(v)
	}
	return s, nil
}

// SetNow replaces the clock the queries compare against (tests,
// benchmarks).
func (s *Store) SetNow(now func() time.Time) { s.now = now }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Repo is the repository identity the store reads and writes.
func (s *Store) Repo() string { return s.repo }

// unreachable is MM_KNOWLEDGE_ERROR for a database that did not answer
// (or failed a query); errors.Is(err, ErrUnreachable) holds.
func unreachable(err error) error {
	return &unreachableError{sdk.Errorf(sdk.CodeKnowledgeError, "knowledge database unreachable: %w", err)}
}

type unreachableError struct{ err *sdk.Error }

func (e *unreachableError) Error() string   { return e.err.Error() }
func (e *unreachableError) Unwrap() []error { return []error{e.err, ErrUnreachable} }

// Check connects and reports the schema version (doctor).
func Check(ctx context.Context, rawURL string) (schema int, err error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return 0, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return 0, unreachable(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	v, err := version(ctx, conn)
	if err != nil {
		return 0, unreachable(err)
	}
	if err := checkVersion(v); err != nil {
		return v, err
	}
	if v < SchemaVersion() {
		return v, needMigrate(v)
	}
	return v, nil
}

// MigrateURL runs Migrate on the database at rawURL.
func MigrateURL(ctx context.Context, rawURL string) ([]int, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return nil, unreachable(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return Migrate(ctx, conn)
}

// Put stores items in one transaction, in order: a step already stored is
// left as it is (idempotent on session id and step id), a session.json
// replaces the session's metadata. A record that does not parse is
// skipped: it could never be stored, and must not hold the queue.
func (s *Store) Put(ctx context.Context, items []knowledge.Item) error {
	b := &pgx.Batch{}
	for _, it := range items {
		if it.StepID == "" {
			m, err := knowledge.ParseSession(it.Data)
			if err != nil {
				continue
			}
			s.queueSession(b, it.SessionID, m, it.Data)
			continue
		}
		f, err := knowledge.ParseStepFields(it.Data)
		if err != nil {
			continue
		}
		s.queueStep(b, it, f)
	}
	if b.Len() == 0 {
		return nil
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, b).Close()
	})
}

func (s *Store) queueSession(b *pgx.Batch, id string, m *knowledge.SessionMeta, data []byte) {
	f := knowledge.MetaFields(m)
	var created *time.Time
	if t, err := knowledge.ParseTime(m.CreatedAt); err == nil {
		created = &t
	}
	var branch, commit string
	if m.Git != nil {
		branch, commit = m.Git.Branch, m.Git.Commit
	}
	b.Queue(`INSERT INTO sessions (session_id, repo, branch, commit_sha, meta, meta_created_at, flow_tags, tags, s_flow, s_tags, goal_words)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (session_id) DO UPDATE SET branch = $3, commit_sha = $4, meta = $5, meta_created_at = $6,
			flow_tags = $7, tags = $8, s_flow = $9, s_tags = $10, goal_words = $11, updated_at = now()`,
		id, s.repo, branch, commit, data, created, m.FlowTags, m.Tags, f.FlowTags, f.Tags, f.GoalWords)
}

func (s *Store) queueStep(b *pgx.Batch, it knowledge.Item, f *knowledge.StepFields) {
	b.Queue(`INSERT INTO steps (session_id, step_id, repo, branch, ts, tool, screen, ok, error_code, test_ids,
			s_tool, s_screen, s_selector, s_labels, s_a11y, target_words, testid_words, record)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
		ON CONFLICT (session_id, step_id) DO NOTHING`,
		it.SessionID, it.StepID, s.repo, f.Branch, f.Timestamp, f.Tool, f.Screen, f.OK, f.ErrCode, f.TestIDs,
		f.LowTool, f.LowScreen, f.Selector, f.Labels, f.A11y, f.TargetWords, f.TestIDWords, it.Data)
	b.Queue(`INSERT INTO sessions (session_id, repo, first_step_at, last_step_at) VALUES ($1, $2, $3, $3)
		ON CONFLICT (session_id) DO UPDATE SET
			first_step_at = LEAST(sessions.first_step_at, $3), last_step_at = GREATEST(sessions.last_step_at, $3)`,
		it.SessionID, s.repo, f.Timestamp)
}
