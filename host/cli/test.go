package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mmcp-dev/mmcp/host"
	"github.com/mmcp-dev/mmcp/host/flows"
	"github.com/mmcp-dev/mmcp/host/launch"
	hostsession "github.com/mmcp-dev/mmcp/host/session"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/sdk"
)

// defaultParallel is how many flows `mmcp test` runs at once without
// --parallel: two a core (a flow mostly waits on Chrome and the chain),
// at most the host's session limit.
func defaultParallel(maxSessions int) int {
	if maxSessions <= 0 {
		maxSessions = hostsession.DefaultMaxSessions
	}
	return max(1, min(2*runtime.NumCPU(), maxSessions))
}

func init() {
	RegisterCommand(Command{
		Name:  "test",
		Usage: "[--parallel N] [--shard I/N] [--grep RE] [--retries N] [--timeout D] [--junit FILE] [--json FILE] [--html DIR] [--out DIR] [--handoff DIR] [PATHS...]",
		Short: "run flow files (a directory: every *.yaml in it) as tests, each in a wallet session of its own",
		Long:  "Exit 0 only when every flow passed (docs/flows.md).",
		Flags: func(fs *flag.FlagSet) {
			fs.Int("parallel", 0, "flows run at once, each in a session of its own (default: 2 a core, at most --max-sessions)")
			fs.String("shard", "", "run shard `I/N` of the suite: flow k of the sorted paths goes to shard k mod N + 1")
			fs.String("grep", "", "run only the flows whose name or path matches this `regexp`")
			fs.Int("retries", 0, "run a failed flow again up to `N` times; one that then passes is reported flaky")
			fs.Duration("timeout", flows.DefaultTimeout, "bound of one attempt of a flow (a flow's timeoutMs overrides it)")
			fs.String("junit", "", "write a JUnit XML report to `FILE`")
			fs.String("json", "", "write a JSON summary to `FILE`")
			fs.String("html", "", "write a static HTML report to `DIR`/index.html (mmcp report)")
			fs.String("out", "", "directory of failed flows' artifacts (default <artifacts-dir>/flows)")
			fs.String("handoff", "", "write a hand-off bundle of each failed flow under `DIR` (the flow, its failing step and error, the screen with earlier sessions' hints, snapshot, screenshot), for mm_flow_run {handoff}")
		},
		Func: runTest,
	})
	RegisterCommand(Command{
		Name:  "test merge-reports",
		Usage: "[--junit OUT] [--json OUT] FILES...",
		Short: "join shards' JUnit (*.xml) and JSON reports",
		Flags: func(fs *flag.FlagSet) {
			fs.String("junit", "", "write the merged JUnit XML of the *.xml inputs to `OUT`")
			fs.String("json", "", "write the merged JSON summary of the *.json inputs to `OUT`")
		},
		Func: runMergeReports,
	})
}

// runTest is `mmcp test [flags] [PATHS...]`.
func runTest(ctx context.Context, in Input) int {
	cfg, pos, stdout, stderr, f := in.Config, in.Args, in.Stdout, in.Stderr, in.Flags
	parallel, shardFlag, grep, retries := f.Int("parallel"), f.String("shard"), f.String("grep"), f.Int("retries")
	timeout, junit, jsonOut, outDir := f.Duration("timeout"), f.String("junit"), f.String("json"), f.String("out")
	handoff := f.String("handoff")
	var err error
	if len(pos) == 0 {
		pos = []string{"."}
	}
	shard := flows.Shard{Index: 1, Count: 1}
	if shardFlag != "" {
		if shard, err = flows.ParseShard(shardFlag); err != nil {
			fmt.Fprintln(stderr, "mmcp test:", err)
			return 2
		}
	}
	var re *regexp.Regexp
	if grep != "" {
		if re, err = regexp.Compile(grep); err != nil {
			fmt.Fprintln(stderr, "mmcp test: --grep:", err)
			return 2
		}
	}
	paths, err := flows.Collect(pos)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp test:", err)
		return 2
	}
	var suite []*flows.Flow
	for _, p := range shard.Pick(paths) {
		f, err := flows.Load(p)
		if err != nil {
			fmt.Fprintln(stderr, "mmcp test:", err)
			return 2
		}
		suite = append(suite, f)
	}
	if err := flows.UniqueNames(suite); err != nil {
		fmt.Fprintln(stderr, "mmcp test:", err)
		return 2
	}
	suite = flows.Grep(suite, re)
	if len(suite) == 0 {
		fmt.Fprintf(stderr, "mmcp test: no flows to run (%d flow files under %s, shard %q, grep %q)\n", len(paths), strings.Join(pos, " "), shardFlag, grep)
		return 1
	}
	if parallel <= 0 {
		parallel = defaultParallel(cfg.MaxSessions)
	}
	// Room for the flows at once and the sessions kept launched ahead
	// (--standby, MMCP_STANDBY or the config file's standby).
	standby := cfg.Standby.N
	if resolved := cfg; resolved.Resolve() == nil {
		standby = resolved.Standby.N
	}
	if need := parallel + standby; need > max(cfg.MaxSessions, hostsession.DefaultMaxSessions) {
		cfg.MaxSessions = need
	}
	if cfg.LogLevel == "" && os.Getenv(sdk.EnvLogLevel) == "" {
		cfg.LogLevel = "warn" // the runner reports; the host's chatter goes only with --log-level
	}
	start := time.Now()
	h, err := startHost(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp test:", err)
		return 1
	}
	defer h.Close()
	if err := flows.CheckTools(suite, h.Runner().Names(nil)); err != nil {
		fmt.Fprintln(stderr, "mmcp test:", err)
		return 2
	}
	h.Sessions().KeepStandby()
	if outDir == "" {
		outDir = filepath.Join(h.Config().ArtifactsDir, "flows")
	}
	fmt.Fprintf(stdout, "mmcp test: %d flows%s, %d at once\n", len(suite), shardNote(shard), min(parallel, len(suite)))
	hostStarted := time.Since(start)
	// Once the last flow launches, nothing is launched ahead behind it.
	launches := &launchCount{left: int64(len(suite)), last: func() { h.Sessions().SetStandby(0) }}
	results := flows.Run(ctx, suite, flows.Options{
		Parallel: parallel, Retries: retries, Timeout: timeout, OutDir: outDir,
		KnowledgeDir: filepath.Join(h.Config().ArtifactsDir, "llm-knowledge"),
		Session:      func(owner string) flows.Session { return flowSession{h: h, owner: owner, launches: launches} },
		Progress:     stdout,
		Describe:     handoff != "",
		Standby:      standbyMatch(h.Config().Standby.N),
	})
	if handoff != "" {
		if err := flows.Handoffs(handoff, suite, results); err != nil {
			fmt.Fprintln(stderr, "mmcp test: --handoff:", err)
		}
	}
	sum := flows.Summarize(results, shard, time.Since(start))
	sum.HostStartMs = hostStarted.Milliseconds()
	fmt.Fprintf(stdout, "mmcp test: %s in %.1fs\n", sum.Counts(), time.Since(start).Seconds())
	if sum.HandedOff > 0 {
		fmt.Fprintf(stdout, "mmcp test: %d handed off under %s (mm_flow_run {handoff: DIR/<flow>}); mmcp report over --json counts their repairs\n", sum.HandedOff, handoff)
	}
	if code := writeReports(sum.WriteJUnit, sum.WriteJSON, junit, jsonOut, stderr); code != 0 {
		return code
	}
	if code := writeHTMLReport(sum, f.String("html"), stdout, stderr); code != 0 {
		return code
	}
	if !sum.OK() {
		return 1
	}
	return 0
}

// standbyMatch is flows.Options.Standby for a host keeping n sessions
// launched ahead: a flow's launch takes one when it asks for the default
// launch (session.MatchesStandby); nil for none.
func standbyMatch(n int) func(map[string]any) bool {
	if n == 0 {
		return nil
	}
	return func(args map[string]any) bool {
		b, err := json.Marshal(args)
		var in launch.Input
		return err == nil && json.Unmarshal(b, &in) == nil && hostsession.MatchesStandby(in)
	}
}

func shardNote(s flows.Shard) string {
	if s.Count <= 1 {
		return ""
	}
	return " (shard " + s.String() + ")"
}

// writeReports writes the JUnit and JSON reports that were asked for.
func writeReports(junit, js func(string) error, junitPath, jsonPath string, stderr io.Writer) int {
	if junitPath != "" {
		if err := junit(junitPath); err != nil {
			fmt.Fprintln(stderr, "mmcp test: --junit:", err)
			return 1
		}
	}
	if jsonPath != "" {
		if err := js(jsonPath); err != nil {
			fmt.Fprintln(stderr, "mmcp test: --json:", err)
			return 1
		}
	}
	return 0
}

// runMergeReports is `mmcp test merge-reports [--junit OUT] [--json OUT]
// FILES...`: *.xml inputs are JUnit reports, the others JSON summaries.
func runMergeReports(_ context.Context, in Input) int {
	pos, stdout, stderr := in.Args, in.Stdout, in.Stderr
	junit, jsonOut := in.Flags.String("junit"), in.Flags.String("json")
	var xmls, jsons []string
	for _, p := range pos {
		if strings.HasSuffix(p, ".xml") {
			xmls = append(xmls, p)
		} else {
			jsons = append(jsons, p)
		}
	}
	if len(pos) == 0 || (junit == "") != (len(xmls) == 0) || (jsonOut == "") != (len(jsons) == 0) {
		fmt.Fprintln(stderr, "mmcp test merge-reports: give --junit OUT with *.xml inputs and --json OUT with *.json inputs")
		return 2
	}
	failed := 0
	if junit != "" {
		j, err := flows.MergeJUnit(xmls)
		if err == nil {
			err = flows.WriteMergedJUnit(junit, j)
		}
		if err != nil {
			fmt.Fprintln(stderr, "mmcp test merge-reports:", err)
			return 1
		}
		failed = j.Failures
		fmt.Fprintf(stdout, "merged %d JUnit reports: %d tests, %d failures -> %s\n", len(xmls), j.Tests, j.Failures, junit)
	}
	if jsonOut != "" {
		s, err := flows.MergeJSON(jsons)
		if err == nil {
			err = s.WriteJSON(jsonOut)
		}
		if err != nil {
			fmt.Fprintln(stderr, "mmcp test merge-reports:", err)
			return 1
		}
		failed = max(failed, s.Failed)
		fmt.Fprintf(stdout, "merged %d JSON summaries: %s -> %s\n", len(jsons), s.Counts(), jsonOut)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// flowSession is a flow's session in the in-process host: its calls carry
// an owner of their own, so each flow launches and drives its own wallet
// session (as each HTTP client of `mmcp serve --http` does).
type flowSession struct {
	h        *host.Host
	owner    string
	launches *launchCount
}

// launchCount counts down the suite's flow launches and calls last as
// the last one starts (a retry's launch comes after it).
type launchCount struct {
	left int64
	last func()
}

func (c *launchCount) launch() {
	if atomic.AddInt64(&c.left, -1) == 0 {
		c.last()
	}
}

func (s flowSession) Call(ctx context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	if tool == flows.ToolLaunch && s.launches != nil {
		s.launches.launch()
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out := s.h.Runner().Run(tools.WithOwner(ctx, s.owner), tools.Request{Tool: tool, Args: b})
	if !out.Envelope.OK {
		return nil, out.Envelope.Error
	}
	return json.Marshal(out.Envelope.Result)
}

func (s flowSession) ConsoleErrors(ctx context.Context) []string {
	sess, err := s.h.Sessions().Active(tools.WithOwner(ctx, s.owner))
	if err != nil {
		return nil
	}
	return sess.ConsoleErrors()
}
