package knowledge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/internal/redact"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Store reads and writes one knowledge root
// (<artifacts>/llm-knowledge). It is safe for concurrent use; several
// Stores, in one process or several, may share a root.
type Store struct {
	root string
	log  hclog.Logger
	now  func() time.Time

	maxBytes int    // the size cap of a step record
	audit    string // SetAudit's file, or ""

	shared Shared  // answers queries when set (SetShared)
	ob     *outbox // sends new files to shared

	mu    sync.Mutex
	ix    *index
	reads int // files read by refresh, for tests
}

// Open returns a Store for root, which need not exist yet (it is created
// on the first write). A nil log discards log output.
func Open(root string, log hclog.Logger) (*Store, error) {
	if root == "" {
		return nil, errors.New("knowledge root is empty")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve knowledge root: %w", err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("knowledge root %s is not a directory", abs)
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Store{root: abs, log: log.Named("knowledge"), now: time.Now, ix: newIndex(), maxBytes: DefaultMaxRecordBytes}, nil
}

// SetMaxRecordBytes sets the size cap of one step record (n <= 0 keeps
// DefaultMaxRecordBytes). Call it before the first Record.
func (s *Store) SetMaxRecordBytes(n int) {
	if n > 0 {
		s.maxBytes = n
	}
}

// SetNow replaces the clock the queries compare against (tests,
// benchmarks).
func (s *Store) SetNow(now func() time.Time) { s.now = now }

// Root returns the absolute knowledge root.
func (s *Store) Root() string { return s.root }

// Stats reports what the index holds: sessions, indexed steps, and files
// skipped because they were not valid session.json or StepRecord files.
// It does not refresh the index.
func (s *Store) Stats() (sessions, steps, skipped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, se := range s.ix.sessions {
		sessions++
		steps += len(se.list)
		skipped += se.skipped()
	}
	return sessions, steps, skipped
}

// WriteSession writes <root>/<sessionId>/session.json atomically. It fills
// schemaVersion, createdAt (now) and empty tag lists.
func (s *Store) WriteSession(meta SessionMeta) error {
	if err := checkSessionID("sessionId", meta.SessionID); err != nil {
		return err
	}
	meta.SchemaVersion = SchemaVersion
	if meta.CreatedAt == "" {
		meta.CreatedAt = formatTime(s.now())
	}
	if meta.FlowTags == nil {
		meta.FlowTags = []string{}
	}
	if meta.Tags == nil {
		meta.Tags = []string{}
	}
	if meta.Launch.StateMode == "" {
		meta.Launch.StateMode = "default"
	}
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("encode session.json: %w", err)
	}
	dir := filepath.Join(s.root, meta.SessionID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return knowledgeErr("create session directory", err)
	}
	path := filepath.Join(dir, "session.json")
	if err := writeAtomic(dir, path, b); err != nil {
		return knowledgeErr("write session.json", err)
	}
	s.enqueue(meta.SessionID + "/session.json")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ix.built {
		se := s.ix.session(meta.SessionID)
		m := meta
		se.setMeta(&m)
		if fi, err := os.Stat(path); err == nil {
			se.metaSeen = fileStamp{fi.ModTime(), fi.Size()}
		}
	}
	return nil
}

// Record writes rec as <root>/<sessionId>/steps/<timestamp>-<tool>.json
// and returns the file's path. It fills schemaVersion, timestamp (now) and
// labels (from tool, target and outcome), redacts sensitive input, and
// refuses a record that does not validate against StepRecordSchema.
func (s *Store) Record(rec StepRecord) (string, error) {
	if err := checkSessionID("sessionId", rec.SessionID); err != nil {
		return "", err
	}
	if rec.Tool.Name == "" {
		return "", sdk.Errorf(sdk.CodeInvalidInput, "step record has no tool name")
	}
	now := s.now()
	rec.SchemaVersion = SchemaVersion
	if rec.Timestamp == "" {
		rec.Timestamp = formatTime(now)
	}
	ts, err := parseTime(rec.Timestamp)
	if err != nil {
		return "", sdk.Errorf(sdk.CodeInvalidInput, "step record timestamp %q is not RFC 3339", rec.Timestamp)
	}
	input, secrets := redact.Args(rec.Tool.Input, rec.Tool.TextKept)
	secrets = append(secrets, rec.Tool.Withheld...)
	rec.Tool.Input = storedInput(input, isRejected(rec.Outcome), s.maxBytes)
	boundError(rec.Outcome.Error, secrets, s.maxBytes)
	if len(rec.Labels) == 0 {
		rec.Labels = Labels("", rec.Tool.Target, rec.Outcome.OK)
	}
	normalizeObservation(&rec.Observation)
	if sc := rec.Observation.State.CurrentScreen; observation.RecordScreen(sc) != sc {
		// A screen the v1 schema does not name stays findable as a label.
		rec.Labels = append(rec.Labels, screenLabel+sc)
		rec.Observation.State.CurrentScreen = observation.RecordScreen(sc)
	}
	rec.Observation.State.ErrorMessage = nil
	maskObservation(&rec.Observation)
	extensionLabels(&rec)
	confirmationBlock(&rec, secrets, s.maxBytes)
	b, err := json.MarshalIndent(rec, "", "  ")
	for err == nil && len(b) > s.maxBytes && shrinkObservation(&rec.Observation) {
		b, err = json.MarshalIndent(rec, "", "  ")
	}
	if err != nil {
		return "", fmt.Errorf("encode step record: %w", err)
	}
	if err := ValidateRecord(b); err != nil {
		s.audited("refused %s %s: %v", rec.Tool.Name, rec.SessionID, err)
		return "", sdk.Errorf(sdk.CodeKnowledgeError, "step record for %s not written: %w", rec.Tool.Name, err)
	}
	raw, err := parseStep(b)
	if err != nil {
		return "", fmt.Errorf("re-read step record: %w", err)
	}

	dir := filepath.Join(s.root, rec.SessionID, "steps")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", knowledgeErr("create steps directory", err)
	}
	base := fileTime(ts) + "-" + safeFileName(rec.Tool.Name)
	s.mu.Lock()
	defer s.mu.Unlock()
	path, err := writeUnique(dir, base, b)
	if err != nil {
		return "", knowledgeErr("write step record", err)
	}
	if s.ix.built {
		se := s.ix.session(rec.SessionID)
		s.ix.addStep(se, filepath.Base(path), raw, fileStamp{})
	}
	s.enqueue(rec.SessionID + "/steps/" + filepath.Base(path))
	s.audited("ok %s %s", rec.Tool.Name, path)
	return path, nil
}

// normalizeObservation turns nil lists into empty ones: the schema wants
// arrays, never null.
func normalizeObservation(o *observation.Observation) {
	if o.TestIDs == nil {
		o.TestIDs = []observation.TestIDItem{}
	}
	if o.A11y.Nodes == nil {
		o.A11y.Nodes = []observation.A11yNode{}
	}
	for i := range o.A11y.Nodes {
		if o.A11y.Nodes[i].Path == nil {
			o.A11y.Nodes[i].Path = []string{}
		}
	}
	// StepRecord v1 closes A11yNodeTrimmed to ref, role, name, disabled,
	// checked, expanded and path: a tab's selected state stays in the
	// tool's answer. The nodes may be the answer's too: copied, not
	// changed in place.
	for i := range o.A11y.Nodes {
		if o.A11y.Nodes[i].Selected != nil {
			nodes := slices.Clone(o.A11y.Nodes)
			for j := range nodes {
				nodes[j].Selected = nil
			}
			o.A11y.Nodes = nodes
			break
		}
	}
	if o.State.CurrentScreen == "" {
		o.State.CurrentScreen = "unknown"
	}
}

// safeFileName keeps letters, digits, '_' and '-' of a tool name.
func safeFileName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// writeUnique writes b to dir/base.json, or base-2.json, base-3.json ...
// when an earlier step (of any process) took the name. The file appears
// complete or not at all: it is written to a temporary file and hard-linked
// into place, which fails instead of replacing an existing file.
func writeUnique(dir, base string, b []byte) (string, error) {
	tmp, err := writeTemp(dir, b)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	for i := 1; i < 1000; i++ {
		name := base + ".json"
		if i > 1 {
			name = base + "-" + strconv.Itoa(i) + ".json"
		}
		path := filepath.Join(dir, name)
		err := os.Link(tmp, path)
		if err == nil {
			return path, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// No hard links on this filesystem: check, then rename.
		if _, serr := os.Lstat(path); serr == nil {
			continue
		}
		return path, os.Rename(tmp, path)
	}
	return "", fmt.Errorf("no free file name for %s", base)
}

// writeAtomic replaces path with b via a temporary file in dir.
func writeAtomic(dir, path string, b []byte) error {
	tmp, err := writeTemp(dir, b)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// writeTemp writes b to a hidden temporary file in dir (readers skip
// names starting with '.').
func writeTemp(dir string, b []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

func knowledgeErr(what string, err error) error {
	return &sdk.Error{Code: sdk.CodeKnowledgeError, Message: what + ": " + err.Error()}
}
