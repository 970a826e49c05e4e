package knowledge

import (
	"encoding/json"
	"fmt"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Scope kinds of a knowledge query: which sessions it reads.
const (
	ScopeCurrent = "current"
	ScopeAll     = "all"
	ScopeSession = "session"
)

// Scope selects the sessions a query reads. In JSON it is "current", "all"
// or {"sessionId": "..."}; the zero value means "the tool's default".
type Scope struct {
	// Kind is ScopeCurrent, ScopeAll, ScopeSession or "" (default).
	Kind string
	// SessionID is the session of a ScopeSession scope.
	SessionID string
}

// CurrentScope, AllScope and SessionScope build scopes.
var (
	CurrentScope = Scope{Kind: ScopeCurrent}
	AllScope     = Scope{Kind: ScopeAll}
)

// SessionScope returns the scope of one named session.
func SessionScope(id string) Scope { return Scope{Kind: ScopeSession, SessionID: id} }

// UnmarshalJSON accepts "current", "all" or {"sessionId": "..."}.
func (s *Scope) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		switch str {
		case ScopeCurrent, ScopeAll:
			*s = Scope{Kind: str}
			return nil
		}
		return sdk.Errorf(sdk.CodeInvalidInput, `scope must be "current", "all" or {"sessionId": "..."}, got %q`, str)
	}
	var obj struct {
		SessionID *string `json:"sessionId"`
	}
	if err := json.Unmarshal(b, &obj); err != nil || obj.SessionID == nil {
		return sdk.Errorf(sdk.CodeInvalidInput, `scope must be "current", "all" or {"sessionId": "..."}`)
	}
	*s = SessionScope(*obj.SessionID)
	return nil
}

// MarshalJSON writes the JSON form UnmarshalJSON reads.
func (s Scope) MarshalJSON() ([]byte, error) {
	switch s.Kind {
	case ScopeSession:
		return json.Marshal(map[string]string{"sessionId": s.SessionID})
	case ScopeCurrent, ScopeAll:
		return json.Marshal(s.Kind)
	case "":
		return []byte("null"), nil
	}
	return nil, fmt.Errorf("unknown scope kind %q", s.Kind)
}

// orDefault returns s, or def when s is the zero Scope.
func (s Scope) orDefault(def Scope) Scope {
	if s.Kind == "" {
		return def
	}
	return s
}

// validate rejects unknown kinds and session ids that could escape the root.
func (s Scope) validate() error {
	switch s.Kind {
	case ScopeCurrent, ScopeAll:
		return nil
	case ScopeSession:
		return checkSessionID("scope.sessionId", s.SessionID)
	}
	return sdk.Errorf(sdk.CodeInvalidInput, "unknown scope %q", s.Kind)
}

// Filters narrow a knowledge query. Session-level fields
// (FlowTag, Tag, GitBranch, SinceHours) are checked against session.json
// (SinceHours against its createdAt) for every scope; Screen applies per
// step.
type Filters struct {
	// FlowTag keeps sessions whose flowTags contain it.
	FlowTag string `json:"flowTag,omitempty"`
	// Tag keeps sessions whose tags contain it.
	Tag string `json:"tag,omitempty"`
	// Screen keeps steps whose observed screen is this one.
	Screen string `json:"screen,omitempty"`
	// SinceHours keeps sessions created in the last N hours.
	SinceHours int `json:"sinceHours,omitempty"`
	// GitBranch keeps sessions launched on this branch.
	GitBranch string `json:"gitBranch,omitempty"`
	// Exclude leaves these sessions out whatever the scope: the host sets
	// it to the sessions another client runs unshared (serve --http),
	// never the caller.
	Exclude []string `json:"-"`
}
