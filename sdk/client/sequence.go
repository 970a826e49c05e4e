package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// SequenceOptions configures RunSequence.
type SequenceOptions struct {
	// KeepGoing runs the remaining calls after a failed one.
	KeepGoing bool
}

// SequenceResult is what RunSequence did.
type SequenceResult struct {
	// OK and Failed count the calls that succeeded and failed.
	OK, Failed int
	// Calls has one outcome per call made, in order.
	Calls []CallOutcome
}

// CallOutcome is the result of one call of a sequence.
type CallOutcome struct {
	// Line is the 1-based line of the call in the input.
	Line int
	// Name and Arguments are the call as read (before session injection).
	Name      string
	Arguments map[string]any
	// Result is the tool's answer (nil when the call did not complete).
	Result *mcp.CallToolResult
	// Err is why the call failed: a transport error, an error result or a
	// failed envelope; nil when it succeeded.
	Err error
}

// ErrSequenceFailed is matched (errors.Is) by RunSequence's error when a
// call of the sequence failed.
var ErrSequenceFailed = errors.New("sequence failed")

// RunSequence replays JSONL calls ({"name", "arguments"} a line) on h, in
// order, through the handle's queue, log and session injection. Session
// arguments recorded in the input (a call log shows the injected key) are
// dropped so the handle's own session is injected instead. Blank lines, and
// lines whose _phase is anything but "before" (the "after" lines of a call
// log), are skipped; the other _ fields of a line (_seq, _ms, ...) are
// ignored, so a call log replays as is. Arguments are otherwise sent
// unchanged: secrets redacted in a log replay as the redaction text.
//
// An error result or an envelope with "ok": false is a failure; RunSequence
// stops at the first failure unless KeepGoing. The error is nil only when
// every call succeeded (it matches ErrSequenceFailed otherwise); a
// transport error or a bad line always stops the run.
func RunSequence(ctx context.Context, h *Handle, r io.Reader, opts SequenceOptions) (SequenceResult, error) {
	var out SequenceResult
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	var first error
	line := 0
	sessionKeys := h.iv.sessionArgs()
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var entry struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
			Phase     *string        `json:"_phase"`
		}
		if err := json.Unmarshal([]byte(text), &entry); err != nil {
			return out, fmt.Errorf("sequence line %d: %w", line, err)
		}
		if entry.Phase != nil && *entry.Phase != "before" {
			continue
		}
		if entry.Name == "" {
			return out, fmt.Errorf("sequence line %d: no tool name", line)
		}
		args := withoutKeys(entry.Arguments, sessionKeys)
		oc := CallOutcome{Line: line, Name: entry.Name, Arguments: args}
		res, err := h.Call(ctx, entry.Name, args)
		oc.Result = res
		if err != nil {
			oc.Err = err
			out.Failed++
			out.Calls = append(out.Calls, oc)
			return out, fmt.Errorf("sequence line %d: %w", line, err)
		}
		if rerr := ResultError(res); rerr != nil {
			oc.Err = rerr
			out.Failed++
			out.Calls = append(out.Calls, oc)
			if first == nil {
				first = fmt.Errorf("%w: line %d: %s: %w", ErrSequenceFailed, line, entry.Name, rerr)
			}
			if !opts.KeepGoing {
				return out, first
			}
			continue
		}
		out.OK++
		out.Calls = append(out.Calls, oc)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read sequence: %w", err)
	}
	if first != nil && out.Failed > 1 {
		return out, fmt.Errorf("%d of %d calls failed; first: %w", out.Failed, out.OK+out.Failed, first)
	}
	return out, first
}

// withoutKeys returns args without the given keys (args itself when none
// is present).
func withoutKeys(args map[string]any, keys []string) map[string]any {
	drop := false
	for _, k := range keys {
		_, ok := args[k]
		drop = drop || ok
	}
	if !drop {
		return args
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}
