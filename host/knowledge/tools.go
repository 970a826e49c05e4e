package knowledge

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mmcp-dev/mmcp/sdk"
)

// decodeArgs reads validated tool arguments; empty args mean {}.
func decodeArgs(args json.RawMessage, v any) error {
	if len(args) == 0 || string(args) == "null" {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		var e *sdk.Error
		if errors.As(err, &e) {
			return e
		}
		return sdk.Errorf(sdk.CodeInvalidInput, "invalid arguments: %v", err)
	}
	return nil
}

// HandleLast runs mm_knowledge_last with arguments already validated
// against its schema (host/schemas/knowledge_last.json); current is the active session id or "".
func (s *Store) HandleLast(ctx context.Context, current string, args json.RawMessage) (any, error) {
	var q LastQuery
	if err := decodeArgs(args, &q); err != nil {
		return nil, err
	}
	return s.Last(ctx, current, q)
}

// HandleSearch runs mm_knowledge_search with arguments already validated
// against its schema.
func (s *Store) HandleSearch(ctx context.Context, current string, args json.RawMessage) (any, error) {
	var q SearchQuery
	if err := decodeArgs(args, &q); err != nil {
		return nil, err
	}
	return s.Search(ctx, current, q)
}

// HandleSummarize runs mm_knowledge_summarize with arguments already
// validated against its schema.
func (s *Store) HandleSummarize(ctx context.Context, current string, args json.RawMessage) (any, error) {
	var q SummarizeQuery
	if err := decodeArgs(args, &q); err != nil {
		return nil, err
	}
	return s.Summarize(ctx, current, q)
}

// HandleSessions runs mm_knowledge_sessions with arguments already
// validated against its schema.
func (s *Store) HandleSessions(ctx context.Context, _ string, args json.RawMessage) (any, error) {
	return s.HandleSessionsHiding(ctx, args, nil)
}

// HandleSessionsHiding is HandleSessions leaving out the sessions hidden
// names (nil: none).
func (s *Store) HandleSessionsHiding(ctx context.Context, args json.RawMessage, hidden func(id string) bool) (any, error) {
	var q SessionsQuery
	if err := decodeArgs(args, &q); err != nil {
		return nil, err
	}
	q.Hidden = hidden
	return s.Sessions(ctx, q)
}
