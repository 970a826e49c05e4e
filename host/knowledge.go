package host

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// recorder turns the runner's steps into StepRecords in the knowledge store.
type recorder struct {
	h *Host

	once sync.Once
	env  *knowledge.Environment
	git  *knowledge.GitInfo
}

func (r *recorder) facts() {
	r.once.Do(func() {
		r.env = &knowledge.Environment{Platform: runtime.GOOS, NodeVersion: cmdOutput("", "node", "--version"), YarnVersion: cmdOutput("", "yarn", "--version")}
		r.git = gitInfo(r.h.cfg.Repo)
	})
}

// Record implements tools.Recorder.
func (r *recorder) Record(_ context.Context, s tools.Step) {
	if s.SessionID == "" {
		// No session, no record: a made-up session without session.json
		// would only clutter mm_knowledge_sessions.
		r.h.log.Debug("step not recorded: no session", "tool", s.Tool)
		return
	}
	r.facts()
	rec := knowledge.StepRecord{
		SessionID:   s.SessionID,
		Timestamp:   tools.Timestamp(s.Started),
		Environment: r.env,
		Git:         r.git,
		Tool:        knowledge.ToolCall{Name: s.Tool, TextRedacted: s.TextRedacted, TextLength: s.TextLength, TextKept: s.TextKept, Withheld: s.Withheld},
		Timing:      &knowledge.Timing{DurationMs: s.Duration.Milliseconds()},
		Outcome:     knowledge.Outcome{OK: s.Err == nil},
	}
	if b := r.h.buildInfo(); b != nil {
		rec.Build = b
	}
	var input map[string]any
	if json.Unmarshal(s.Input, &input) == nil {
		rec.Tool.Input = input
	}
	if len(s.Target) > 0 {
		rec.Tool.Target = &knowledge.Target{Selector: s.Target["selector"], TestID: s.Target["testId"], A11yRef: s.Target["a11yRef"]}
	}
	if s.Err != nil {
		rec.Outcome.Error = &knowledge.OutcomeError{Code: s.Err.Code, Message: s.Err.Message, Details: s.Err.Details}
	}
	if s.Observation != nil {
		rec.Observation = *s.Observation
	} else {
		rec.Observation = observation.Observation{State: observation.State{CurrentScreen: "unknown"},
			TestIDs: []observation.TestIDItem{}, A11y: observation.A11y{Nodes: []observation.A11yNode{}}}
	}
	if rec.Observation.State.CurrentScreen == "" {
		rec.Observation.State.CurrentScreen = "unknown"
	}
	if s.Screenshot != nil {
		rec.Artifacts = &knowledge.Artifacts{Screenshot: &knowledge.Screenshot{Path: s.Screenshot.Path, Width: s.Screenshot.Width, Height: s.Screenshot.Height}}
	}
	if _, err := r.h.knowledge.Record(rec); err != nil {
		r.h.log.Warn("step record not written", "tool", s.Tool, "error", err)
	}
}

// buildInfo is the build block: the extension of the running session.
func (h *Host) buildInfo() *knowledge.BuildInfo {
	if h.sess == nil || h.sess.parts == nil {
		return nil
	}
	return &knowledge.BuildInfo{BuildType: knowledge.BuildType, ExtensionPathResolved: h.sess.parts.Extension}
}

// sessionStarted writes session.json for a new session.
func (h *Host) sessionStarted(s *session) {
	h.rec.facts()
	p := s.parts
	in := p.Input
	ports := &knowledge.Ports{}
	if p.Chain != nil {
		ports.Anvil = p.Chain.Port
	}
	if p.Fixture != nil {
		ports.FixtureServer = p.Fixture.Port
	}
	meta := knowledge.SessionMeta{
		SessionID: s.id, CreatedAt: tools.Timestamp(s.createdAt), Goal: in.Goal,
		FlowTags: nonNil(in.FlowTags), Tags: nonNil(in.Tags), Git: h.rec.git,
		Build:  h.buildInfo(),
		Launch: knowledge.LaunchInfo{StateMode: in.StateMode, ExtensionPath: p.Extension, Ports: ports},
	}
	if in.FixturePreset != "" {
		p := in.FixturePreset
		meta.Launch.FixturePreset = &p
	}
	if err := h.knowledge.WriteSession(meta); err != nil {
		h.log.Warn("session.json not written", "error", err)
	}
	h.log.Info("session started", "sessionId", s.id, "extension", p.Extension)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sensitiveField decides from the element, the target and the text itself
// whether typed text is a secret.
func sensitiveField(f discovery.FieldInfo, t discovery.Target, text string) bool {
	return knowledge.Sensitive(knowledge.FieldHints{
		InputType: f.Type, Name: f.Name, ID: f.ID, Label: f.Label, Placeholder: f.Placeholder,
		Autocomplete: f.Autocomplete, AriaLabel: f.AriaLabel, TestID: firstNonEmpty(f.TestID, t.TestID),
		Selector: t.Selector,
	}, text)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// priorKnowledge is mm_describe_screen's hint block, or nil.
func (h *Host) priorKnowledge(ctx context.Context, obs *observation.Observation) any {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	pk, err := h.knowledge.PriorKnowledge(qctx, h.SessionID(), knowledge.PriorQuery{
		Screen: obs.State.CurrentScreen, URL: obs.State.CurrentURL, TestIDs: obs.TestIDs, A11yNodes: obs.A11y.Nodes,
	})
	if err != nil || pk == nil {
		if err != nil {
			h.log.Debug("prior knowledge", "error", err)
		}
		return nil
	}
	return pk
}

// knowledgeTools are mm_knowledge_last, _search, _summarize, _sessions.
func (h *Host) knowledgeTools() []*tools.Tool {
	mk := func(name, desc, schema string, fn func(context.Context, string, json.RawMessage) (any, error)) *tools.Tool {
		return &tools.Tool{Name: h.name(name), Description: desc, Schema: json.RawMessage(schema), NoSession: true,
			Handler: func(ctx context.Context, c *tools.Call) (any, error) {
				h.runner.Settle() // the previous call's record, made after it answered
				return fn(ctx, h.SessionID(), c.Args)
			}}
	}
	return []*tools.Tool{
		mk("knowledge_last", "The last N recorded steps (scope current by default; all or {sessionId} too), compact.", knowledge.LastSchema, h.knowledge.HandleLast),
		mk("knowledge_search", "Search recorded steps of all sessions by tool, screen, testId, accessible name or label (synonyms: send/transfer, approve/confirm ...).", knowledge.SearchSchema, h.knowledge.HandleSearch),
		mk("knowledge_summarize", "A recipe of one session's steps (scope current or {sessionId}).", knowledge.SummarizeSchema, h.knowledge.HandleSummarize),
		mk("knowledge_sessions", "Recent sessions with goal, flow tags, tags and git branch, newest first.", knowledge.SessionsSchema, h.knowledge.HandleSessions),
	}
}

// cmdOutput runs a command and returns its trimmed output, or "".
func cmdOutput(dir, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// gitInfo describes the workspace's git state, or nil outside a repository.
func gitInfo(repo string) *knowledge.GitInfo {
	if repo == "" {
		return nil // no workspace: never the working directory's repository
	}
	commit := cmdOutput(repo, "git", "rev-parse", "HEAD")
	if commit == "" {
		return nil
	}
	dirty := cmdOutput(repo, "git", "status", "--porcelain") != ""
	return &knowledge.GitInfo{Branch: cmdOutput(repo, "git", "rev-parse", "--abbrev-ref", "HEAD"), Commit: commit, Dirty: &dirty}
}

// knowledgeRoot is where the store lives.
func (h *Host) knowledgeRoot() string { return filepath.Join(h.cfg.ArtifactsDir, "llm-knowledge") }
