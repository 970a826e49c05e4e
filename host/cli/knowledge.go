package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mmcp-dev/mmcp/host/config"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/knowledge/pgstore"
)

func init() {
	RegisterCommand(Command{
		Name:  "knowledge migrate",
		Short: "create or upgrade the schema of the shared knowledge store (--knowledge-url)",
		Func: withKnowledgeStore("migrate", 0, func(ctx context.Context, in Input, ks knowledgeStore) int {
			applied, err := pgstore.MigrateURL(ctx, ks.url)
			if err != nil {
				return ks.fail(err)
			}
			fmt.Fprintf(in.Stdout, "knowledge schema at version %d (applied %v)\n", pgstore.SchemaVersion(), applied)
			return 0
		}),
	})
	RegisterCommand(Command{
		Name:  "knowledge push",
		Usage: "[DIR]",
		Short: "import a file store (default the workspace's) into the shared knowledge store",
		Func: withKnowledgeStore("push", 1, func(ctx context.Context, in Input, ks knowledgeStore) int {
			dir := ks.root
			if len(in.Args) == 1 {
				dir = knowledgeRoot(in.Config.Path(in.Args[0]))
			}
			return ks.open(ctx, func(pg *pgstore.Store, id string) int {
				n, err := knowledge.Push(ctx, dir, pg)
				if err != nil {
					return ks.fail(err)
				}
				fmt.Fprintf(in.Stdout, "pushed %d files from %s to the shared store (repo %s)\n", n, dir, id)
				return 0
			})
		}),
	})
	RegisterCommand(Command{
		Name:  "knowledge pull",
		Usage: "[--out DIR] [--session ID] [--flow-tag T] [--branch B] [--since-hours N] [--limit N]",
		Short: "bring a slice of the shared knowledge store back to files",
		Flags: func(fs *flag.FlagSet) {
			fs.String("out", "", "the knowledge root to write into (default <artifacts-dir>/llm-knowledge)")
			fs.String("session", "", "one session")
			fs.String("flow-tag", "", "sessions with this flow tag")
			fs.String("branch", "", "sessions launched on this git branch")
			fs.Int("since-hours", 0, "sessions created in the last N hours")
			fs.Int("limit", 0, "at most N sessions, newest first")
		},
		Func: withKnowledgeStore("pull", 0, func(ctx context.Context, in Input, ks knowledgeStore) int {
			fl := in.Flags
			f := pgstore.PullFilter{SessionID: fl.String("session"), FlowTag: fl.String("flow-tag"), Branch: fl.String("branch"),
				SinceHours: fl.Int("since-hours"), Limit: fl.Int("limit")}
			out := fl.String("out")
			if out == "" {
				out = ks.root
			}
			return ks.open(ctx, func(pg *pgstore.Store, id string) int {
				sessions, files, err := pg.Pull(ctx, out, f)
				if err != nil {
					return ks.fail(err)
				}
				fmt.Fprintf(in.Stdout, "pulled %d sessions (%d new files) of repo %s into %s\n", sessions, files, id, out)
				return 0
			})
		}),
	})
}

// knowledgeStore is what the knowledge commands share: the resolved
// configuration's shared store and the workspace's file store.
type knowledgeStore struct {
	url, root string
	cfg       config.Config
	fail      func(error) int
}

// open connects to the shared store as the workspace's repository and
// runs f with it.
func (ks knowledgeStore) open(ctx context.Context, f func(pg *pgstore.Store, id string) int) int {
	id := pgstore.Identity(ks.cfg.Repo, ks.cfg.KnowledgeProject)
	pg, err := pgstore.Open(ctx, ks.url, id)
	if err != nil {
		return ks.fail(err)
	}
	defer pg.Close()
	return f(pg, id)
}

// withKnowledgeStore is the Func of `mmcp knowledge SUB`: at most maxArgs
// positionals, the configuration resolved, a shared store named.
func withKnowledgeStore(sub string, maxArgs int, run func(context.Context, Input, knowledgeStore) int) func(context.Context, Input) int {
	return func(ctx context.Context, in Input) int {
		if len(in.Args) > maxArgs {
			return in.Misused()
		}
		cfg := in.Config
		if err := cfg.Resolve(); err != nil {
			fmt.Fprintln(in.Stderr, "mmcp:", err)
			return 2
		}
		url := cfg.SharedKnowledge()
		if url == "" {
			fmt.Fprintln(in.Stderr, "mmcp knowledge: no shared store: pass --knowledge-url or set MMCP_KNOWLEDGE_URL")
			return 2
		}
		in.Config = cfg
		return run(ctx, in, knowledgeStore{url: url, root: filepath.Join(cfg.ArtifactsDir, "llm-knowledge"), cfg: cfg,
			fail: func(err error) int {
				fmt.Fprintln(in.Stderr, "mmcp knowledge "+sub+":", err)
				return 1
			}})
	}
}

// knowledgeRoot accepts an artifacts dir (holding llm-knowledge) or a
// knowledge root itself.
func knowledgeRoot(dir string) string {
	if k := filepath.Join(dir, "llm-knowledge"); isDir(k) {
		return k
	}
	return dir
}

// knowledgeCheck is doctor's line for --knowledge-url: it connects and
// reads the schema version.
func knowledgeCheck(ctx context.Context, url string) check {
	c := check{Name: "knowledge-db", Required: true}
	v, err := pgstore.Check(ctx, url)
	if err != nil {
		c.Detail = err.Error()
		c.Fix = "check --knowledge-url / MMCP_KNOWLEDGE_URL and PGPASSWORD or ~/.pgpass; run `mmcp knowledge migrate` for a new database"
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("reachable, schema version %d", v)
	return c
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
