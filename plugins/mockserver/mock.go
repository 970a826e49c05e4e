package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Match kinds of Mock.Match.
const (
	MatchExact  = "exact"
	MatchPrefix = "prefix"
	MatchRegex  = "regex"
)

// Mock is one declared response: the format of the mock files and of the
// add_mock tool.
type Mock struct {
	// ID names the mock in the request records. Empty means one is
	// assigned; declaring a mock with an existing id replaces it.
	ID string `json:"id,omitempty"`
	// Method is the HTTP method; empty or "*" matches any.
	Method string `json:"method,omitempty"`
	// URL is matched against the request's full URL
	// (scheme://host[:port]/path?query) as Match says.
	URL string `json:"url"`
	// Match is exact (the default), prefix or regex (Go syntax). An exact
	// URL without a query matches the request whatever its query is.
	Match string `json:"match,omitempty"`
	// Status is the response status; 0 means 200.
	Status int `json:"status,omitempty"`
	// Headers are the response headers. Content-Type defaults to
	// application/json for JSON, else to what the body looks like.
	Headers map[string]string `json:"headers,omitempty"`
	// JSON is the response body as a JSON value; Body is a text body. At
	// most one of them.
	JSON json.RawMessage `json:"json,omitempty"`
	Body string          `json:"body,omitempty"`
	// DelayMs delays the response.
	DelayMs int `json:"delayMs,omitempty"`
	// Times is how many requests the mock answers; 0 means unlimited. An
	// exhausted mock stays listed but matches nothing.
	Times int `json:"times,omitempty"`
}

// maxDelay bounds DelayMs: a mock slows a request down, it never hangs it.
const maxDelayMs = 60000

// mock is a Mock ready to match, with its use count.
type mock struct {
	Mock
	// Source is where the mock comes from: "default", a workspace file's
	// path, or "tool".
	Source string
	re     *regexp.Regexp
	hits   int
}

// compile checks m and prepares it for matching. Errors are
// MM_INVALID_INPUT naming the field.
func compile(m Mock, source string) (*mock, error) {
	bad := func(field, format string, args ...any) error {
		return sdk.Errorf(sdk.CodeInvalidInput, "mock %s: %s", field, fmt.Sprintf(format, args...)).
			WithDetails(map[string]any{"field": field, "source": source})
	}
	m.Method = strings.ToUpper(strings.TrimSpace(m.Method))
	if m.Method == "*" {
		m.Method = ""
	}
	if m.URL == "" {
		return nil, bad("url", "is required")
	}
	if m.Match == "" {
		m.Match = MatchExact
	}
	out := &mock{Mock: m, Source: source}
	switch m.Match {
	case MatchExact, MatchPrefix:
		if !strings.HasPrefix(m.URL, "http://") && !strings.HasPrefix(m.URL, "https://") {
			return nil, bad("url", "%q must start with http:// or https:// (or use match regex)", m.URL)
		}
	case MatchRegex:
		re, err := regexp.Compile(m.URL)
		if err != nil {
			return nil, bad("url", "not a regular expression: %v", err)
		}
		out.re = re
	default:
		return nil, bad("match", "%q is not exact, prefix or regex", m.Match)
	}
	if m.Status == 0 {
		out.Status = http.StatusOK
	}
	if out.Status < 100 || out.Status > 999 {
		return nil, bad("status", "%d is not an HTTP status", m.Status)
	}
	if len(m.JSON) > 0 && m.Body != "" {
		return nil, bad("json", "give json or body, not both")
	}
	if len(m.JSON) > 0 && !json.Valid(m.JSON) {
		return nil, bad("json", "is not valid JSON")
	}
	if m.DelayMs < 0 || m.DelayMs > maxDelayMs {
		return nil, bad("delayMs", "must be between 0 and %d", maxDelayMs)
	}
	if m.Times < 0 {
		return nil, bad("times", "must be 0 (unlimited) or more")
	}
	return out, nil
}

// exhausted reports whether the mock has answered all its Times.
func (m *mock) exhausted() bool { return m.Times > 0 && m.hits >= m.Times }

// matches reports whether the mock answers method and url.
func (m *mock) matches(method, url string) bool {
	if m.Method != "" && m.Method != method {
		return false
	}
	switch m.Match {
	case MatchPrefix:
		return strings.HasPrefix(url, m.URL)
	case MatchRegex:
		return m.re.MatchString(url)
	}
	if url == m.URL {
		return true
	}
	if !strings.Contains(m.URL, "?") {
		base, _, _ := strings.Cut(url, "?")
		return base == m.URL
	}
	return false
}

// body is the response body and its default content type.
func (m *mock) body() ([]byte, string) {
	if len(m.JSON) > 0 {
		return m.JSON, "application/json"
	}
	if m.Body == "" {
		return nil, ""
	}
	b := []byte(m.Body)
	return b, sniff(b)
}

// sniff is the content type of a text body: http.DetectContentType's,
// except that markup it does not know (a fragment such as <button ...>,
// which it calls text/plain, and Chrome would show as text) is HTML.
func sniff(b []byte) string {
	ctype := http.DetectContentType(b)
	if !strings.HasPrefix(ctype, "text/plain") {
		return ctype
	}
	s := bytes.TrimLeft(b, " \t\r\n")
	if len(s) > 1 && s[0] == '<' && (s[1] >= 'a' && s[1] <= 'z' || s[1] >= 'A' && s[1] <= 'Z') && bytes.IndexByte(s, '>') > 0 {
		return "text/html; charset=utf-8"
	}
	return ctype
}

// write sends the mock's response.
func (m *mock) write(w http.ResponseWriter) {
	b, ctype := m.body()
	h := w.Header()
	for k, v := range m.Headers {
		h.Set(k, v)
	}
	if ctype != "" && h.Get("Content-Type") == "" {
		h.Set("Content-Type", ctype)
	}
	h.Set(markerHeader, m.ID)
	w.WriteHeader(m.Status)
	_, _ = bytes.NewReader(b).WriteTo(w)
}

// markerHeader marks every response of the proxy with the id of the mock
// that answered, or "unmatched".
const markerHeader = "X-Mmcp-Mock"
