package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mmcp-dev/mmcp/host/config"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/knowledge/pgstore"
)

const knowledgeUsage = `usage: mmcp [--knowledge-url URL] knowledge migrate
       mmcp [--knowledge-url URL] knowledge push [DIR]
       mmcp [--knowledge-url URL] knowledge pull [--out DIR] [--session ID] [--flow-tag T] [--branch B] [--since-hours N] [--limit N]`

// runKnowledge is `mmcp knowledge migrate|push|pull`: the shared knowledge
// store of --knowledge-url.
func runKnowledge(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, knowledgeUsage)
		return 2
	}
	if err := cfg.Resolve(); err != nil {
		fmt.Fprintln(stderr, "mmcp:", err)
		return 2
	}
	url := cfg.SharedKnowledge()
	if url == "" {
		fmt.Fprintln(stderr, "mmcp knowledge: no shared store: pass --knowledge-url or set MMCP_KNOWLEDGE_URL")
		return 2
	}
	root := filepath.Join(cfg.ArtifactsDir, "llm-knowledge")
	sub, args := args[0], args[1:]
	fs := subcommand("knowledge "+sub, knowledgeUsage, stderr)
	out := fs.String("out", root, "pull: the knowledge root to write into")
	f := pgstore.PullFilter{}
	fs.StringVar(&f.SessionID, "session", "", "pull: one session")
	fs.StringVar(&f.FlowTag, "flow-tag", "", "pull: sessions with this flow tag")
	fs.StringVar(&f.Branch, "branch", "", "pull: sessions launched on this git branch")
	fs.IntVar(&f.SinceHours, "since-hours", 0, "pull: sessions created in the last N hours")
	fs.IntVar(&f.Limit, "limit", 0, "pull: at most N sessions, newest first")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "mmcp knowledge "+sub+":", err)
		return 1
	}
	if sub == "migrate" {
		applied, err := pgstore.MigrateURL(ctx, url)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "knowledge schema at version %d (applied %v)\n", pgstore.SchemaVersion(), applied)
		return 0
	}
	id := pgstore.Identity(cfg.Repo, cfg.KnowledgeProject)
	pg, err := pgstore.Open(ctx, url, id)
	if err != nil {
		return fail(err)
	}
	defer pg.Close()
	switch {
	case sub == "push" && len(pos) <= 1:
		dir := root
		if len(pos) == 1 {
			dir = knowledgeRoot(cfg.Path(pos[0]))
		}
		n, err := knowledge.Push(ctx, dir, pg)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "pushed %d files from %s to the shared store (repo %s)\n", n, dir, id)
		return 0
	case sub == "pull" && len(pos) == 0:
		sessions, files, err := pg.Pull(ctx, *out, f)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "pulled %d sessions (%d new files) of repo %s into %s\n", sessions, files, id, *out)
		return 0
	}
	fmt.Fprintln(stderr, knowledgeUsage)
	return 2
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
