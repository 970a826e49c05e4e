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

	"github.com/mmcp-dev/mmcp/internal/redact"
)

// SequenceOptions configures RunSequence.
type SequenceOptions struct {
	// KeepGoing runs the remaining calls after a failed one.
	KeepGoing bool
	// Secrets supply the values a call log withheld (typed text,
	// passwords, keys: "[redacted N chars]"). A key is an argument's
	// dotted path ("steps.2.args.text") or just its name ("text"), which
	// then applies to every withheld value of that name.
	Secrets map[string]string
}

// ErrRedacted is matched (errors.Is) by RunSequence's error when a call
// has a withheld value that SequenceOptions.Secrets does not supply; no
// call is made then.
var ErrRedacted = errors.New("value withheld in the log")

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
// ignored, so a call log replays as is. A value the log withheld
// ("[redacted N chars]") is taken from opts.Secrets; without it the
// sequence is refused (ErrRedacted) before any call is made.
//
// An error result or an envelope with "ok": false is a failure; RunSequence
// stops at the first failure unless KeepGoing. The error is nil only when
// every call succeeded (it matches ErrSequenceFailed otherwise); a
// transport error or a bad line always stops the run.
func RunSequence(ctx context.Context, h *Handle, r io.Reader, opts SequenceOptions) (SequenceResult, error) {
	var out SequenceResult
	calls, err := readSequence(r, opts.Secrets)
	if err != nil {
		return out, err
	}
	var first error
	sessionKeys := h.iv.sessionArgs()
	for _, c := range calls {
		args := withoutKeys(c.args, sessionKeys)
		oc := CallOutcome{Line: c.line, Name: c.name, Arguments: args}
		res, err := h.Call(ctx, c.name, args)
		oc.Result = res
		if err != nil {
			oc.Err = err
			out.Failed++
			out.Calls = append(out.Calls, oc)
			return out, fmt.Errorf("sequence line %d: %w", c.line, err)
		}
		if rerr := ResultError(res); rerr != nil {
			oc.Err = rerr
			out.Failed++
			out.Calls = append(out.Calls, oc)
			if first == nil {
				first = fmt.Errorf("%w: line %d: %s: %w", ErrSequenceFailed, c.line, c.name, rerr)
			}
			if !opts.KeepGoing {
				return out, first
			}
			continue
		}
		out.OK++
		out.Calls = append(out.Calls, oc)
	}
	if first != nil && out.Failed > 1 {
		return out, fmt.Errorf("%d of %d calls failed; first: %w", out.Failed, out.OK+out.Failed, first)
	}
	return out, first
}

// seqCall is one call read from a sequence.
type seqCall struct {
	line int
	name string
	args map[string]any
}

// readSequence reads every call of a sequence and fills in withheld values
// from secrets. A bad line, or a withheld value that secrets do not supply
// (all of them are listed), is an error before any call is made.
func readSequence(r io.Reader, secrets map[string]string) ([]seqCall, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	var calls []seqCall
	var missing []string
	line := 0
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
			return nil, fmt.Errorf("sequence line %d: %w", line, err)
		}
		if entry.Phase != nil && *entry.Phase != "before" {
			continue
		}
		if entry.Name == "" {
			return nil, fmt.Errorf("sequence line %d: no tool name", line)
		}
		args := supplySecrets(entry.Arguments, "", secrets, func(path string) {
			missing = append(missing, fmt.Sprintf("line %d %s: %s", line, entry.Name, path))
		}).(map[string]any)
		calls = append(calls, seqCall{line: line, name: entry.Name, args: args})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read sequence: %w", err)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s; supply each value (mmcp replay --secret FIELD=ENVVAR, FIELD being the argument's name or dotted path)",
			ErrRedacted, strings.Join(missing, "; "))
	}
	return calls, nil
}

// supplySecrets returns v with every withheld string replaced by its value
// from secrets (by dotted path, then by name), calling missing for each
// one it cannot fill.
func supplySecrets(v any, path string, secrets map[string]string, missing func(string)) any {
	switch t := v.(type) {
	case nil:
		if path == "" {
			return map[string]any{}
		}
		return nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, vv := range t {
			p := k
			if path != "" {
				p = path + "." + k
			}
			out[k] = supplySecrets(vv, p, secrets, missing)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, vv := range t {
			out[i] = supplySecrets(vv, fmt.Sprintf("%s.%d", path, i), secrets, missing)
		}
		return out
	case string:
		if !redact.HasPlaceholder(t) {
			return t
		}
		if s, ok := secrets[path]; ok {
			return s
		}
		if s, ok := secrets[path[strings.LastIndex(path, ".")+1:]]; ok {
			return s
		}
		missing(path)
	}
	return v
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
