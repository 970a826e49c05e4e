package knowledge

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mmcp-dev/mmcp/sdk"
)

// definitions is KnowledgeScope and KnowledgeFilters of spec 004 section
// 5.1, inlined into each tool schema so "#/definitions/..." resolves.
const definitions = `"definitions": {
    "KnowledgeScope": {
      "oneOf": [
        { "type": "string", "enum": ["current", "all"] },
        {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "sessionId": { "type": "string", "minLength": 4 }
          },
          "required": ["sessionId"]
        }
      ]
    },
    "KnowledgeFilters": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "flowTag": { "type": "string", "minLength": 1 },
        "tag": { "type": "string", "minLength": 1 },
        "screen": { "type": "string", "minLength": 1 },
        "sinceHours": { "type": "integer", "minimum": 1, "maximum": 720 },
        "gitBranch": { "type": "string", "minLength": 1 }
      }
    }
  }`

// LastSchema is the input schema of mm_knowledge_last (spec 004 5.3).
const LastSchema = `{
  "additionalProperties": false,
  ` + definitions + `,
  "properties": {
    "n": { "type": "integer", "minimum": 1, "maximum": 200, "default": 20 },
    "scope": { "$ref": "#/definitions/KnowledgeScope", "default": "current" },
    "filters": { "$ref": "#/definitions/KnowledgeFilters" }
  },
  "type": "object"
}`

// SearchSchema is the input schema of mm_knowledge_search (spec 004 5.2).
const SearchSchema = `{
  "additionalProperties": false,
  ` + definitions + `,
  "properties": {
    "query": { "type": "string", "minLength": 1, "maxLength": 200 },
    "limit": { "type": "integer", "minimum": 1, "maximum": 100, "default": 20 },
    "scope": { "$ref": "#/definitions/KnowledgeScope", "default": "all" },
    "filters": { "$ref": "#/definitions/KnowledgeFilters" }
  },
  "required": ["query"],
  "type": "object"
}`

// SummarizeSchema is the input schema of mm_knowledge_summarize (spec 004
// 5.4).
const SummarizeSchema = `{
  "additionalProperties": false,
  ` + definitions + `,
  "properties": {
    "sessionId": {
      "type": "string",
      "minLength": 4,
      "description": "Deprecated: use scope"
    },
    "scope": { "$ref": "#/definitions/KnowledgeScope", "default": "current" }
  },
  "type": "object"
}`

// SessionsSchema is the input schema of mm_knowledge_sessions (spec 004
// 5.5).
const SessionsSchema = `{
  "additionalProperties": false,
  ` + definitions + `,
  "properties": {
    "limit": { "type": "integer", "minimum": 1, "maximum": 50, "default": 10 },
    "filters": { "$ref": "#/definitions/KnowledgeFilters" }
  },
  "type": "object"
}`

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
// against LastSchema; current is the active session id or "".
func (s *Store) HandleLast(ctx context.Context, current string, args json.RawMessage) (any, error) {
	var q LastQuery
	if err := decodeArgs(args, &q); err != nil {
		return nil, err
	}
	return s.Last(ctx, current, q)
}

// HandleSearch runs mm_knowledge_search with arguments already validated
// against SearchSchema.
func (s *Store) HandleSearch(ctx context.Context, current string, args json.RawMessage) (any, error) {
	var q SearchQuery
	if err := decodeArgs(args, &q); err != nil {
		return nil, err
	}
	return s.Search(ctx, current, q)
}

// HandleSummarize runs mm_knowledge_summarize with arguments already
// validated against SummarizeSchema.
func (s *Store) HandleSummarize(ctx context.Context, current string, args json.RawMessage) (any, error) {
	var q SummarizeQuery
	if err := decodeArgs(args, &q); err != nil {
		return nil, err
	}
	return s.Summarize(ctx, current, q)
}

// HandleSessions runs mm_knowledge_sessions with arguments already
// validated against SessionsSchema.
func (s *Store) HandleSessions(ctx context.Context, _ string, args json.RawMessage) (any, error) {
	var q SessionsQuery
	if err := decodeArgs(args, &q); err != nil {
		return nil, err
	}
	return s.Sessions(ctx, q)
}
