package knowledge

// StepSummary is KnowledgeStepSummary: one step as the knowledge tools
// return it.
type StepSummary struct {
	// Timestamp is the step's record timestamp.
	Timestamp string `json:"timestamp"`
	// Tool is the tool name.
	Tool string `json:"tool"`
	// Screen is the screen observed after the step.
	Screen string `json:"screen"`
	// Snippet is a one-line human-readable summary.
	Snippet string `json:"snippet"`
	// SessionID is the step's session.
	SessionID string `json:"sessionId,omitempty"`
	// MatchedFields says what matched a search ("testId:send-button").
	MatchedFields []string `json:"matchedFields,omitempty"`
	// SessionGoal is the goal of the step's session, when it has one.
	SessionGoal string `json:"sessionGoal,omitempty"`
}

// LastResult is the result of mm_knowledge_last.
type LastResult struct {
	// Steps are the newest steps first.
	Steps []StepSummary `json:"steps"`
}

// SearchResult is the result of mm_knowledge_search.
type SearchResult struct {
	// Matches are ranked best first.
	Matches []StepSummary `json:"matches"`
	// Query echoes the query.
	Query string `json:"query"`
}

// RecipeStep is one step of a summarized session.
type RecipeStep struct {
	// StepNumber counts from 1.
	StepNumber int `json:"stepNumber"`
	// Tool is the tool name.
	Tool string `json:"tool"`
	// Notes describe the target, screen and failure.
	Notes string `json:"notes"`
}

// SummarizeResult is the result of mm_knowledge_summarize.
type SummarizeResult struct {
	// SessionID is the summarized session.
	SessionID string `json:"sessionId"`
	// StepCount is the number of recorded steps.
	StepCount int `json:"stepCount"`
	// Recipe lists the steps in order.
	Recipe []RecipeStep `json:"recipe"`
}

// SessionGit is the git block of a SessionSummary.
type SessionGit struct {
	// Branch is the branch the session ran on.
	Branch string `json:"branch,omitempty"`
	// Commit is the commit the session ran on.
	Commit string `json:"commit,omitempty"`
}

// SessionSummary is one session as mm_knowledge_sessions lists it.
type SessionSummary struct {
	// SessionID is the session's id.
	SessionID string `json:"sessionId"`
	// CreatedAt is session.json's createdAt (else the first step's time).
	CreatedAt string `json:"createdAt"`
	// Goal is the session's goal.
	Goal string `json:"goal,omitempty"`
	// FlowTags are the session's flow tags.
	FlowTags []string `json:"flowTags"`
	// Tags are the session's free-form tags.
	Tags []string `json:"tags"`
	// Git is the session's git state, when recorded.
	Git *SessionGit `json:"git,omitempty"`
}

// SessionsResult is the result of mm_knowledge_sessions.
type SessionsResult struct {
	// Sessions are newest first.
	Sessions []SessionSummary `json:"sessions"`
}

// A11yHint names an element by accessibility role and name.
type A11yHint struct {
	// Role is the ARIA role.
	Role string `json:"role"`
	// Name is the accessible name.
	Name string `json:"name"`
}
