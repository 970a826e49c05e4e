package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/observation"
)

const (
	benchSessions = 500
	benchSteps    = 20
)

// genStore writes benchSessions sessions of benchSteps realistic steps
// (20 testids and 25 accessibility nodes each) straight to disk.
func genStore(b *testing.B) string {
	b.Helper()
	root := filepath.Join(b.TempDir(), "llm-knowledge")
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"send", "swap", "bridge", "account", "network", "token", "confirm", "cancel", "amount", "asset",
		"gas", "fee", "nonce", "settings", "security", "unlock", "import", "export", "receive", "buy", "activity", "nft",
		"menu", "picker", "list", "item", "button", "input", "modal", "footer", "header", "overview", "balance", "approve"}
	pick := func() string { return words[rng.IntN(len(words))] }
	var testIDs, names []string
	for range 400 {
		testIDs = append(testIDs, pick()+"-"+pick()+"-"+pick())
		names = append(names, strings.ToUpper(pick()[:1])+pick()[1:]+" "+pick()+" "+pick())
	}
	roles := []string{"button", "link", "textbox", "checkbox", "heading", "dialog", "menuitem", "tab"}
	toolNames := []string{"mm_describe_screen", "mm_click", "mm_click", "mm_type", "mm_wait_for", "mm_get_state", "mm_navigate"}
	flows := []string{"send", "swap", "connect", "sign", "onboarding", "settings", "tx-confirmation"}
	now := time.Now().UTC()
	for si := range benchSessions {
		id := fmt.Sprintf("mm-bench-%04d", si)
		created := now.Add(-time.Duration(rng.IntN(40*60)) * time.Minute)
		meta := SessionMeta{SchemaVersion: 1, SessionID: id, CreatedAt: formatTime(created), Goal: "run the " + pick() + " " + pick() + " flow",
			FlowTags: []string{flows[si%len(flows)]}, Tags: []string{"bench"}, Git: &GitInfo{Branch: "main", Commit: "abc"},
			Launch: LaunchInfo{StateMode: "default"}}
		mb, _ := json.MarshalIndent(meta, "", "  ")
		writeFile(b, filepath.Join(root, id, "session.json"), string(mb))
		for k := range benchSteps {
			at := created.Add(time.Duration(k) * 3 * time.Second)
			tool := toolNames[rng.IntN(len(toolNames))]
			target := ""
			if tool == "mm_click" || tool == "mm_type" || tool == "mm_wait_for" {
				target = testIDs[rng.IntN(len(testIDs))]
			}
			r := step(id, at, tool, observation.Screens[rng.IntN(len(observation.Screens))], target, rng.IntN(10) > 0)
			r.Observation.State.CurrentURL = "chrome-extension://abc/home.html#/" + pick()
			for range 20 {
				r.Observation.TestIDs = append(r.Observation.TestIDs, observation.TestIDItem{TestID: testIDs[rng.IntN(len(testIDs))], Tag: "button", Text: pick(), Visible: true})
			}
			for n := range 25 {
				r.Observation.A11y.Nodes = append(r.Observation.A11y.Nodes, observation.A11yNode{Ref: fmt.Sprintf("e%d", n+1),
					Role: roles[rng.IntN(len(roles))], Name: names[rng.IntN(len(names))], Path: []string{"dialog"}})
			}
			r.Labels = Labels(testClass[r.Tool.Name], r.Tool.Target, r.Outcome.OK)
			r.SchemaVersion = 1
			sb, _ := json.MarshalIndent(r, "", "  ")
			writeFile(b, filepath.Join(root, id, "steps", fileTime(at)+"-"+tool+".json"), string(sb))
		}
	}
	time.Sleep(2 * racyWindow) // let directory mtimes settle, as on a real store
	return root
}

func BenchmarkKnowledge(b *testing.B) {
	root := genStore(b)
	ctx := context.Background()
	query := SearchQuery{Query: "confirm send amount"}
	warm, err := Open(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := warm.Search(ctx, "", query); err != nil {
		b.Fatal(err)
	}
	if _, steps, skipped := warm.Stats(); steps != benchSessions*benchSteps || skipped != 0 {
		b.Fatalf("indexed %d steps, skipped %d", steps, skipped)
	}
	current := "mm-bench-0000"
	prior := PriorQuery{Screen: "home", URL: "chrome-extension://abc/home.html#/send"}
	for _, e := range warm.ix.sessions[current].list[:1] {
		for _, t := range e.testIDs {
			prior.TestIDs = append(prior.TestIDs, observation.TestIDItem{TestID: warm.ix.syms.str(t), Tag: "button", Visible: true})
		}
	}

	b.Run("cold-open-and-search", func(b *testing.B) {
		loop(b, func() {
			s, _ := Open(root, nil)
			if _, err := s.Search(ctx, "", query); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("warm-disk-check-only", func(b *testing.B) {
		loop(b, func() {
			unlock, err := warm.lockedRefresh(ctx)
			if err != nil {
				b.Fatal(err)
			}
			unlock()
		})
	})
	b.Run("warm-search", func(b *testing.B) {
		loop(b, func() {
			res, err := warm.Search(ctx, "", query)
			if err != nil || len(res.Matches) == 0 {
				b.Fatal(err)
			}
		})
	})
	b.Run("warm-search-filtered", func(b *testing.B) {
		loop(b, func() {
			if _, err := warm.Search(ctx, "", SearchQuery{Query: "transfer", Filters: &Filters{FlowTag: "send", SinceHours: 24}}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("warm-last-all", func(b *testing.B) {
		loop(b, func() {
			if _, err := warm.Last(ctx, current, LastQuery{Scope: AllScope}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("warm-sessions", func(b *testing.B) {
		loop(b, func() {
			if _, err := warm.Sessions(ctx, SessionsQuery{}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("warm-summarize", func(b *testing.B) {
		loop(b, func() {
			if _, err := warm.Summarize(ctx, current, SummarizeQuery{}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("warm-prior-knowledge", func(b *testing.B) {
		loop(b, func() {
			if _, err := warm.PriorKnowledge(ctx, current, prior); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("cold-prior-knowledge", func(b *testing.B) {
		loop(b, func() {
			s, _ := Open(root, nil)
			if _, err := s.PriorKnowledge(ctx, current, prior); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("naive-reread-search", func(b *testing.B) {
		loop(b, func() {
			if n := naiveSearch(b, root, expandSynonyms(tokenize(query.Query))); n == 0 {
				b.Fatal("naive search found nothing")
			}
		})
	})
}

// cpuTime is the process's user+system CPU time so far. The benchmarks
// report it per op ("cpu-ms/op") because wall time on a shared machine
// says more about the neighbours than about the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f b.N times and reports CPU milliseconds per op.
func loop(b *testing.B, f func()) {
	start := cpuTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// naiveSearch is the approach without an index: read and decode every
// file on every query, then match tokens.
func naiveSearch(b *testing.B, root string, tokens []string) int {
	sessions, err := os.ReadDir(root)
	if err != nil {
		b.Fatal(err)
	}
	hits := 0
	for _, se := range sessions {
		if mb, err := os.ReadFile(filepath.Join(root, se.Name(), "session.json")); err == nil {
			var m SessionMeta
			_ = json.Unmarshal(mb, &m)
		}
		dir := filepath.Join(root, se.Name(), "steps")
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil {
				continue
			}
			var r StepRecord
			if json.Unmarshal(data, &r) != nil {
				continue
			}
			if naiveMatch(&r, tokens) {
				hits++
			}
		}
	}
	return hits
}

func naiveMatch(r *StepRecord, tokens []string) bool {
	for _, t := range tokens {
		if strings.Contains(strings.ToLower(r.Tool.Name), t) || strings.Contains(r.Observation.State.CurrentScreen, t) {
			return true
		}
		for _, ti := range r.Observation.TestIDs {
			if strings.Contains(ti.TestID, t) {
				return true
			}
		}
		for _, n := range r.Observation.A11y.Nodes {
			if strings.Contains(strings.ToLower(n.Name), t) {
				return true
			}
		}
	}
	return false
}
