package client

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A call log replays on a fresh server as the same calls, with the session
// injected by the adapter and the "after" lines skipped.
func TestRunSequenceReplaysCallLog(t *testing.T) {
	t.Parallel()
	opts := Options{Adapter: sessionAdapter(), SessionKey: "s1"}
	rec, log := connect(t, opts)
	ctx := testCtx(t)
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"echo", map[string]any{"text": "one"}},
		{"whoami", nil},
		{"big", map[string]any{"n": 500}},
		{"echo", map[string]any{"note": map[string]any{"text": "two"}, "testId": "x"}},
	} {
		if _, err := rec.Call(ctx, c.name, c.args); err != nil {
			t.Fatal(err)
		}
	}

	play, _ := connect(t, Options{Adapter: sessionAdapter(), SessionKey: "s2"})
	// The log withheld the typed text: the replay is refused, naming each
	// value to supply, before any call.
	_, err := RunSequence(ctx, play, strings.NewReader(log.String()), SequenceOptions{})
	if !errors.Is(err, ErrRedacted) || !strings.Contains(err.Error(), "line 1 echo: text") || !strings.Contains(err.Error(), "line 7 echo: note.text") {
		t.Fatalf("replay of withheld values: %v", err)
	}
	// Each withheld value supplied, by name and by dotted path.
	res, err := RunSequence(ctx, play, strings.NewReader(log.String()), SequenceOptions{Secrets: map[string]string{"text": "one", "note.text": "two"}})
	if err != nil {
		t.Fatalf("RunSequence: %v", err)
	}
	if res.OK != 4 || res.Failed != 0 || len(res.Calls) != 4 {
		t.Fatalf("result = %+v", res)
	}
	if got := decodeText(t, Text(res.Calls[1].Result)); got["sessionName"] != "s2" {
		t.Fatalf("replayed whoami ran in session %v, want s2", got["sessionName"])
	}

	history := func(h *Handle) []map[string]any {
		r, err := h.Call(ctx, "history", nil)
		if err != nil {
			t.Fatal(err)
		}
		var calls []map[string]any
		for _, c := range parseLog(t, strings.ReplaceAll(strings.Trim(Text(r), "[]"), "},{\"name\"", "}\n{\"name\"")) {
			calls = append(calls, c.m)
		}
		return calls
	}
	want, got := history(rec), history(play)
	// Only the injected session differs.
	for _, calls := range [][]map[string]any{want, got} {
		for _, c := range calls {
			if a, ok := c["arguments"].(map[string]any); ok {
				delete(a, "sessionName")
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("replayed calls differ:\n got %v\nwant %v", got, want)
	}
}

func TestRunSequenceStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	const seq = `{"name":"echo","arguments":{"text":"a"}}

{"name":"envelope","arguments":{"ok":false}}
{"name":"echo","arguments":{"text":"b"},"_phase":"after","_ok":true}
{"name":"fail"}
{"name":"echo","arguments":{"text":"c"},"_phase":"before","_seq":9}
`
	h, _ := connect(t, Options{})
	ctx := testCtx(t)
	res, err := RunSequence(ctx, h, strings.NewReader(seq), SequenceOptions{})
	if !errors.Is(err, ErrSequenceFailed) || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("RunSequence = %v, want a failure at line 3", err)
	}
	if res.OK != 1 || res.Failed != 1 || len(res.Calls) != 2 {
		t.Fatalf("result = %+v", res)
	}

	res, err = RunSequence(ctx, h, strings.NewReader(seq), SequenceOptions{KeepGoing: true})
	if !errors.Is(err, ErrSequenceFailed) {
		t.Fatalf("KeepGoing RunSequence = %v", err)
	}
	if res.OK != 2 || res.Failed != 2 {
		t.Fatalf("KeepGoing result = %+v", res)
	}
	var names []string
	for _, c := range res.Calls {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "echo,envelope,fail,echo" {
		t.Fatalf("calls made: %s", got)
	}
	if _, err := RunSequence(ctx, h, strings.NewReader("{not json\n"), SequenceOptions{}); err == nil {
		t.Fatal("bad line accepted")
	}
}
