package pgstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mmcp-dev/mmcp/sdk"
)

// migrations are the schema's versions: migrations/NNNN_name.sql, applied
// in order, each in one transaction.
//
//go:embed migrations/*.sql
var migrations embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() []migration {
	ents, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		panic(err)
	}
	var out []migration
	for _, e := range ents {
		v, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			panic("migration without a version: " + e.Name())
		}
		b, err := migrations.ReadFile("migrations/" + e.Name())
		if err != nil {
			panic(err)
		}
		out = append(out, migration{v, e.Name(), string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	return out
}

// SchemaVersion is the newest schema this binary knows.
func SchemaVersion() int {
	m := loadMigrations()
	return m[len(m)-1].version
}

// version reads the database's schema version: 0 when never migrated.
func version(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('mmcp_schema_migrations') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return 0, err
	}
	var v int
	err := q.QueryRow(ctx, `SELECT COALESCE(max(version), 0) FROM mmcp_schema_migrations`).Scan(&v)
	return v, err
}

// Migrate brings the database's schema to SchemaVersion and returns the
// versions it applied. Concurrent runs are serialized by an advisory lock.
func Migrate(ctx context.Context, conn *pgx.Conn) ([]int, error) {
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(7436401)`); err != nil {
		return nil, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(7436401)`)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS mmcp_schema_migrations (
		version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, err
	}
	cur, err := version(ctx, conn)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(cur); err != nil {
		return nil, err
	}
	var applied []int
	for _, m := range loadMigrations() {
		if m.version <= cur {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO mmcp_schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("migration %s: %w", m.name, err)
		}
		applied = append(applied, m.version)
	}
	return applied, nil
}

// checkVersion refuses a database migrated by a newer mmcp.
func checkVersion(v int) error {
	if known := SchemaVersion(); v > known {
		return sdk.Errorf(sdk.CodeKnowledgeError,
			"the knowledge database has schema version %d, newer than this mmcp knows (%d): upgrade mmcp", v, known).
			WithDetails(map[string]any{"schemaVersion": v, "knownVersion": known})
	}
	return nil
}

// needMigrate is the error of a database not (fully) migrated.
func needMigrate(v int) error {
	return sdk.Errorf(sdk.CodeKnowledgeError,
		"the knowledge database has schema version %d, this mmcp needs %d: run `mmcp knowledge migrate`", v, SchemaVersion()).
		WithDetails(map[string]any{"schemaVersion": v, "knownVersion": SchemaVersion()})
}
