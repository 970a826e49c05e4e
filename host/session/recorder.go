package session

import (
	"context"
	"encoding/json"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
)

// Recorder turns the runner's steps into StepRecords in the knowledge
// store, and writes each new session's session.json.
type Recorder struct {
	m *Manager

	once sync.Once
	env  *knowledge.Environment
	git  *knowledge.GitInfo
}

func (r *Recorder) facts() {
	r.once.Do(func() {
		r.env = &knowledge.Environment{Platform: runtime.GOOS, NodeVersion: cmdOutput("", "node", "--version"), YarnVersion: yarnVersion(r.m.cfg.Repo)}
		r.git = gitInfo(r.m.cfg.Repo)
	})
}

// Record implements tools.Recorder.
func (r *Recorder) Record(_ context.Context, s tools.Step) {
	if s.SessionID == "" {
		// No session, no record: a made-up session without session.json
		// would only clutter mm_knowledge_sessions.
		r.m.log.Debug("step not recorded: no session", "tool", s.Tool)
		return
	}
	r.facts()
	rec := knowledge.StepRecord{
		SessionID:    s.SessionID,
		Timestamp:    tools.Timestamp(s.Started),
		Environment:  r.env,
		Git:          r.git,
		Tool:         knowledge.ToolCall{Name: s.Tool, TextRedacted: s.TextRedacted, TextLength: s.TextLength, TextKept: s.TextKept, Withheld: s.Withheld},
		Timing:       &knowledge.Timing{DurationMs: s.Duration.Milliseconds()},
		Outcome:      knowledge.Outcome{OK: s.Err == nil},
		Confirmation: s.Confirmation,
	}
	sess := r.m.byID(s.SessionID)
	rec.Build = r.buildInfo(sess)
	if rec.Build != nil && !sess.buildChanged(rec.Build.BuildID) {
		rec.Build.BuildID = "" // labelled where it changed only
	}
	var input map[string]any
	if json.Unmarshal(s.Input, &input) == nil {
		rec.Tool.Input = input
	}
	if len(s.Target) > 0 {
		rec.Tool.Target = &knowledge.Target{Selector: s.Target["selector"], TestID: s.Target["testId"], A11yRef: s.Target["a11yRef"],
			Role: s.Target["role"], Name: s.Target["name"]}
	}
	rec.Labels = append(knowledge.Labels(s.Label, rec.Tool.Target, rec.Outcome.OK), s.Labels...)
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
	if _, err := r.m.knowledge.Record(rec); err != nil {
		r.m.log.Warn("step record not written", "tool", s.Tool, "error", err)
	}
}

// buildInfo is the build block: the extension of session s, nil for none.
func (r *Recorder) buildInfo(s *Session) *knowledge.BuildInfo {
	if s == nil || s.parts == nil {
		return nil
	}
	return &knowledge.BuildInfo{BuildType: knowledge.BuildType, ExtensionPathResolved: s.parts.Extension, BuildID: s.BuildID()}
}

// sessionStarted writes session.json for a new session (a fork's names
// the checkpoint it started from).
func (r *Recorder) sessionStarted(s *Session) {
	r.facts()
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
		SessionID: s.ID, CreatedAt: tools.Timestamp(s.CreatedAt), Goal: in.Goal,
		FlowTags: nonNil(in.FlowTags), Tags: nonNil(in.Tags), Git: r.git,
		Build:  r.buildInfo(s),
		Launch: knowledge.LaunchInfo{StateMode: in.StateMode, ExtensionPath: p.Extension, Ports: ports},
	}
	if in.FixturePreset != "" {
		p := in.FixturePreset
		meta.Launch.FixturePreset = &p
	}
	if s.from != nil {
		ref := forkView(s.from)
		meta.Launch.FromCheckpoint = &ref
	}
	if err := r.m.knowledge.WriteSession(meta); err != nil {
		r.m.log.Warn("session.json not written", "error", err)
	}
	r.m.log.Info("session started", "sessionId", s.ID, "extension", p.Extension)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
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
