package flows

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// Summary is the JSON report of `mmcp test` (--json).
type Summary struct {
	Shard  string `json:"shard,omitempty"`
	Total  int    `json:"total"`
	Passed int    `json:"passed"`
	Failed int    `json:"failed"`
	Flaky  int    `json:"flaky"`
	// Replayed counts the flows replayed (each from its file, without a
	// model): passed, failed and flaky together.
	Replayed int `json:"replayed"`
	// HandedOff counts the failed flows handed to an agent (--handoff);
	// Repaired and Regression what the agent's repairs of them became
	// (mm_flow_resume's record in the bundle, read when a report is made
	// from the summary).
	HandedOff  int   `json:"handedOff,omitempty"`
	Repaired   int   `json:"repaired,omitempty"`
	Regression int   `json:"regression,omitempty"`
	DurationMs int64 `json:"durationMs"`
	// HostStartMs is the part of DurationMs the host took to start (its
	// plugins) before the first flow.
	HostStartMs int64    `json:"hostStartMs,omitempty"`
	Flows       []Result `json:"flows"`
}

// Summarize counts results.
func Summarize(results []Result, shard Shard, took time.Duration) Summary {
	s := Summary{Shard: shard.String(), Flows: results, DurationMs: took.Milliseconds()}
	for i := range s.Flows {
		s.Flows[i].Shard = s.Shard
	}
	s.count()
	return s
}

func (s *Summary) count() {
	s.Total, s.Passed, s.Failed, s.Flaky, s.HandedOff, s.Repaired, s.Regression = len(s.Flows), 0, 0, 0, 0, 0, 0
	s.Replayed = s.Total
	for _, r := range s.Flows {
		if r.Handoff != "" {
			s.HandedOff++
		}
		if r.Repair != nil {
			switch r.Repair.Verdict {
			case DriftRepaired:
				s.Repaired++
			case DriftRegression:
				s.Regression++
			}
		}
		switch r.Status {
		case StatusPassed:
			s.Passed++
		case StatusFlaky:
			s.Flaky++
		default:
			s.Failed++
		}
	}
}

// Counts is the summary's counts in a line: "8 replayed: 7 passed, 1
// failed, 0 flaky", then, when a flow was handed off, ", 1 handed off"
// and, once repairs are known, ", 1 repaired, 0 regression".
func (s Summary) Counts() string {
	line := fmt.Sprintf("%d replayed: %d passed, %d failed, %d flaky", s.Replayed, s.Passed, s.Failed, s.Flaky)
	if s.HandedOff > 0 {
		line += fmt.Sprintf(", %d handed off", s.HandedOff)
	}
	if s.Repaired+s.Regression > 0 {
		line += fmt.Sprintf(", %d repaired, %d regression", s.Repaired, s.Regression)
	}
	return line
}

// OK says no flow failed (a flaky flow passed on a retry).
func (s Summary) OK() bool { return s.Failed == 0 }

// JUnit XML, the shape CI systems read (Jenkins, GitLab, GitHub actions).
type (
	JUnitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []JUnitSuite `xml:"testsuite"`
	}
	JUnitSuite struct {
		Name      string          `xml:"name,attr"`
		Tests     int             `xml:"tests,attr"`
		Failures  int             `xml:"failures,attr"`
		Errors    int             `xml:"errors,attr"`
		Skipped   int             `xml:"skipped,attr"`
		Time      string          `xml:"time,attr"`
		Timestamp string          `xml:"timestamp,attr,omitempty"`
		Cases     []JUnitTestCase `xml:"testcase"`
	}
	JUnitTestCase struct {
		Name       string        `xml:"name,attr"`
		Classname  string        `xml:"classname,attr"`
		Time       string        `xml:"time,attr"`
		Properties *JUnitProps   `xml:"properties,omitempty"`
		Failure    *JUnitFailure `xml:"failure,omitempty"`
		SystemOut  string        `xml:"system-out,omitempty"`
	}
	JUnitProps struct {
		Props []JUnitProp `xml:"property"`
	}
	JUnitProp struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	JUnitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// JUnit renders the summary: one testsuite ("mmcp flows", with the shard),
// one testcase per flow named by the flow's name, classname its path.
func (s Summary) JUnit() JUnitSuites {
	name := "mmcp flows"
	if s.Shard != "" {
		name += " shard " + s.Shard
	}
	suite := JUnitSuite{Name: name, Tests: s.Total, Failures: s.Failed, Time: seconds(s.DurationMs), Timestamp: time.Now().UTC().Format(time.RFC3339)}
	for _, r := range s.Flows {
		tc := JUnitTestCase{Name: r.Name, Classname: r.Path, Time: seconds(r.DurationMs)}
		if tc.Classname == "" {
			tc.Classname = "flows"
		}
		props := []JUnitProp{{"status", r.Status}, {"attempts", fmt.Sprint(r.Attempts)}}
		if r.Shard != "" {
			props = append(props, JUnitProp{"shard", r.Shard})
		}
		if r.SessionID != "" {
			props = append(props, JUnitProp{"sessionId", r.SessionID})
		}
		tc.Properties = &JUnitProps{props}
		if r.Status == StatusFailed {
			tc.Failure = &JUnitFailure{Message: r.Error, Type: r.ErrorCode, Text: failureText(r)}
		}
		if r.Status == StatusFlaky {
			tc.SystemOut = fmt.Sprintf("flaky: passed on attempt %d of %d", r.Attempts, r.Attempts)
		}
		suite.Cases = append(suite.Cases, tc)
	}
	return JUnitSuites{Name: "mmcp", Tests: s.Total, Failures: s.Failed, Time: suite.Time, Suites: []JUnitSuite{suite}}
}

func failureText(r Result) string {
	var b strings.Builder
	fmt.Fprintln(&b, r.Error)
	if a := r.Artifacts; a != nil {
		for _, kv := range [][2]string{{"screenshot", a.Screenshot}, {"snapshot", a.Snapshot}, {"console errors", a.ConsoleErrors}, {"result", a.Steps}, {"step records", a.StepRecords}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
			}
		}
	}
	return b.String()
}

// WriteJUnit writes the summary as JUnit XML to path.
func (s Summary) WriteJUnit(path string) error {
	return writeJUnit(path, s.JUnit())
}

func writeJUnit(path string, j JUnitSuites) error {
	b, err := xml.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}

// WriteJSON writes the summary as JSON to path.
func (s Summary) WriteJSON(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// MergeJSON joins shards' JSON summaries into one, flows sorted by path;
// a handed-off flow's repair is read from its bundle (as it is now).
func MergeJSON(paths []string) (Summary, error) {
	var m Summary
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return m, err
		}
		var s Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return m, fmt.Errorf("%s: %w", p, err)
		}
		m.Flows = append(m.Flows, s.Flows...)
		m.DurationMs = max(m.DurationMs, s.DurationMs)
	}
	for i := range m.Flows {
		if r := &m.Flows[i]; r.Handoff != "" {
			r.Repair = ReadRepair(r.Handoff)
		}
	}
	sort.SliceStable(m.Flows, func(i, j int) bool { return m.Flows[i].Path < m.Flows[j].Path })
	m.count()
	return m, nil
}

// MergeJUnit joins shards' JUnit files into one (their suites side by
// side, the totals summed).
func MergeJUnit(paths []string) (JUnitSuites, error) {
	m := JUnitSuites{Name: "mmcp"}
	var total float64
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return m, err
		}
		var j JUnitSuites
		if err := xml.Unmarshal(b, &j); err != nil {
			return m, fmt.Errorf("%s: %w", p, err)
		}
		for _, s := range j.Suites {
			m.Suites = append(m.Suites, s)
			m.Tests += s.Tests
			m.Failures += s.Failures
			m.Errors += s.Errors
			var t float64
			fmt.Sscan(s.Time, &t)
			total = max(total, t)
		}
	}
	m.Time = fmt.Sprintf("%.3f", total)
	return m, nil
}

// WriteMergedJUnit writes MergeJUnit's result.
func WriteMergedJUnit(path string, j JUnitSuites) error { return writeJUnit(path, j) }
