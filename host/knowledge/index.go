package knowledge

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// index is the in-memory view of the store: per session its metadata and a
// compact summary of each step, enough to answer every query without
// opening a file. It is guarded by Store.mu.
type index struct {
	built    bool
	root     dirStamp
	sessions map[string]*sessionEntry
	syms     *symtab
}

// dirStamp remembers when a directory was last listed and what its mtime
// was, so an unchanged directory is never listed again.
type dirStamp struct {
	mtime    time.Time
	listedAt time.Time
}

// racyWindow covers filesystems whose mtimes are coarser than the time
// between two writes: a directory listed within this window of its mtime
// is listed again on the next query.
const racyWindow = 100 * time.Millisecond

func (d dirStamp) fresh(mtime time.Time) bool {
	return !d.listedAt.IsZero() && d.mtime.Equal(mtime) && d.listedAt.Sub(mtime) >= racyWindow
}

// fileStamp identifies one version of a file.
type fileStamp struct {
	mtime time.Time
	size  int64
}

type sessionEntry struct {
	id       string
	meta     *SessionMeta
	metaBad  bool
	metaSeen fileStamp
	created  time.Time // session.json createdAt, else the first step
	steps    dirStamp
	files    map[string]*fileEntry
	list     []*stepEntry // sorted by time, then file name
	unsorted bool
}

// fileEntry is one file of a steps directory: a step, or a skipped file
// remembered with its stamp so it is retried only when it changes.
type fileEntry struct {
	step  *stepEntry
	stamp fileStamp
}

// a11yPair is one accessibility node as symbols.
type a11yPair struct{ role, name int32 }

// stepEntry is the indexed summary of one StepRecord.
type stepEntry struct {
	sess       *sessionEntry
	file       string
	ts         time.Time
	tsRaw      string
	tool       int32
	action     string // tool name without its prefix: "click"
	class      string // the tool's class label: discovery, navigation, interaction or ""
	screen     int32
	url        string
	target     Target
	targetTID  int32
	targetSel  int32
	labels     []int32
	testIDs    []int32
	a11y       []a11yPair
	ok         bool
	errCode    string
	errMsg     string
	hint       *A11yHint
	screenshot bool
}

func newIndex() *index {
	return &index{sessions: map[string]*sessionEntry{}, syms: newSymtab()}
}

func (ix *index) session(id string) *sessionEntry {
	s := ix.sessions[id]
	if s == nil {
		s = &sessionEntry{id: id, files: map[string]*fileEntry{}}
		ix.sessions[id] = s
	}
	return s
}

// addStep indexes a parsed record as file name of session s, replacing any
// earlier entry for that file.
func (ix *index) addStep(s *sessionEntry, name string, r *rawStep, stamp fileStamp) {
	s.removeFile(name)
	t := ix.syms
	e := &stepEntry{
		sess: s, file: name, ts: r.ts, tsRaw: r.Timestamp,
		tool: t.intern(r.Tool.Name), class: classOf(r.Labels), action: actionName(r.Tool.Name, classOf(r.Labels)),
		targetTID: noSym, targetSel: noSym,
		ok: r.Outcome.OK,
	}
	if r.Tool.Target != nil {
		e.target = *r.Tool.Target
		e.targetTID = t.internOpt(e.target.TestID)
		e.targetSel = t.internOpt(e.target.Selector)
	}
	if r.Outcome.Error != nil {
		e.errCode, e.errMsg = r.Outcome.Error.Code, r.Outcome.Error.Message
	}
	screen := "unknown"
	if o := r.Observation; o != nil {
		if o.State.CurrentScreen != "" {
			screen = o.State.CurrentScreen
		}
		e.url = o.State.CurrentURL
		e.testIDs = make([]int32, 0, len(o.TestIDs))
		for _, ti := range o.TestIDs {
			if ti.TestID != "" {
				e.testIDs = append(e.testIDs, t.intern(ti.TestID))
			}
		}
		e.a11y = make([]a11yPair, 0, len(o.A11y.Nodes))
		for _, n := range o.A11y.Nodes {
			e.a11y = append(e.a11y, a11yPair{role: t.intern(n.Role), name: t.intern(n.Name)})
			if e.target.A11yRef != "" && n.Ref == e.target.A11yRef && n.Name != "" {
				e.hint = &A11yHint{Role: n.Role, Name: n.Name}
			}
		}
	}
	for _, l := range r.Labels {
		if name, ok := strings.CutPrefix(l, screenLabel); ok && name != "" {
			screen = name
		}
		e.labels = append(e.labels, t.intern(l))
	}
	e.screen = t.intern(screen)
	e.screenshot = r.Artifacts != nil && r.Artifacts.Screenshot != nil && r.Artifacts.Screenshot.Path != ""
	s.files[name] = &fileEntry{step: e, stamp: stamp}
	if n := len(s.list); n > 0 && !stepLess(e, s.list[n-1]) {
		s.list = append(s.list, e)
	} else {
		s.list = append(s.list, e)
		s.unsorted = true
	}
}

func (s *sessionEntry) removeFile(name string) {
	fe := s.files[name]
	if fe == nil {
		return
	}
	delete(s.files, name)
	if fe.step != nil {
		s.list = slices.DeleteFunc(s.list, func(e *stepEntry) bool { return e == fe.step })
	}
}

func stepLess(a, b *stepEntry) bool {
	if c := a.ts.Compare(b.ts); c != 0 {
		return c < 0
	}
	return a.file < b.file
}

// sorted returns the session's steps in time order.
func (s *sessionEntry) sorted() []*stepEntry {
	if s.unsorted {
		slices.SortFunc(s.list, func(a, b *stepEntry) int {
			return cmp.Or(a.ts.Compare(b.ts), strings.Compare(a.file, b.file))
		})
		s.unsorted = false
	}
	return s.list
}

// setMeta records session.json and derives the creation time.
func (s *sessionEntry) setMeta(m *SessionMeta) {
	s.meta, s.metaBad = m, false
	s.created = time.Time{}
	if m != nil {
		if t, err := parseTime(m.CreatedAt); err == nil {
			s.created = t
		}
	}
}

// createdAt is session.json's createdAt, else the first step's time.
func (s *sessionEntry) createdAt() time.Time {
	if !s.created.IsZero() {
		return s.created
	}
	if l := s.sorted(); len(l) > 0 {
		return l[0].ts
	}
	return time.Time{}
}

// lastActive is the newest of the creation time and the last step.
func (s *sessionEntry) lastActive() time.Time {
	t := s.createdAt()
	if l := s.sorted(); len(l) > 0 && l[len(l)-1].ts.After(t) {
		t = l[len(l)-1].ts
	}
	return t
}

func (s *sessionEntry) skipped() int {
	n := 0
	for _, f := range s.files {
		if f.step == nil {
			n++
		}
	}
	if s.metaBad {
		n++
	}
	return n
}

// actionName strips the tool prefix ("mm_click" -> "click") of a tool
// with a class (one of mmcp's own); other names are returned unchanged.
func actionName(tool, class string) string {
	if _, rest, ok := strings.Cut(tool, "_"); ok && class != "" {
		return rest
	}
	return tool
}
