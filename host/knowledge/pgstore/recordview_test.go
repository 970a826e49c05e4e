package pgstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mmcp-dev/mmcp/host/knowledge"
	"github.com/mmcp-dev/mmcp/host/observation"
)

// TestRecordViewParsesAsRecord checks that the part of a record the tools
// read (record_view, migration 0003) answers every query as the whole
// record does, and fails to parse where it fails, for records spelled
// unusually: names in other cases (encoding/json matches them), non-ASCII
// names, values of the wrong type, members the parse skips.
func TestRecordViewParsesAsRecord(t *testing.T) {
	srv := migrated(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	const base = `"schemaVersion":1,"timestamp":"2026-01-15T11:00:00.000Z","sessionId":"mm-a",`
	cases := map[string]string{
		"usual": `{` + base + `"tool":{"name":"mm_click","input":{"a11yRef":"e2","deep":[1,{"x":2}]},"target":{"a11yRef":"e2"}},
			"outcome":{"ok":true,"result":{"big":"x"}},"labels":["interaction","screen:send"],
			"observation":{"state":{"currentScreen":"home","currentUrl":"chrome-extension://a/home.html#/send/0xab","isLoaded":true},
				"testIds":[{"testId":"send-button","tag":"button","text":"Send","visible":true},null,{"tag":"div"}],
				"a11y":{"nodes":[{"ref":"e1","role":"button","name":"Send","path":["dialog"]},{"ref":"e2","role":"link","name":"Swap","path":[]}],"extra":1},
				"priorKnowledge":{"similarSteps":[]}},
			"artifacts":{"screenshot":{"path":"s.png"}},"context":{"x":1}}`,
		"other cases": `{"SchemaVersion":1,"TimeStamp":"2026-01-15T11:00:00.000Z","SESSIONID":"mm-a",
			"Tool":{"NAME":"mm_type","Target":{"TestId":"amount"}},"OutCome":{"OK":false,"Error":{"Code":"MM_TARGET_NOT_FOUND","Message":"no"}},
			"Labels":["interaction"],"Observation":{"State":{"CurrentScreen":"send"},"TestIDs":[{"TESTID":"amount","tag":"input"}],
				"A11Y":{"Nodes":[{"Ref":"e1","ROLE":"textbox","Name":"Amount","path":["x"]}]}}}`,
		"both spellings": `{` + base + `"tool":{"name":"mm_click","input":{}},"Tool":{"Target":{"testId":"b"},"input":{}},"outcome":{"ok":true},
			"observation":{"state":{"currentScreen":"home"},"testIds":[{"testId":"a","text":"A"}],"TestIds":[{"testId":"b","Text":"B"}],
				"a11y":{"nodes":[{"ref":"e1","role":"button","name":"A"}]},"A11y":{"Nodes":[{"Ref":"e9","Role":"link","Name":"B","path":[]}]}}}`,
		"non-ASCII names": `{` + base + `"tool":{"name":"mm_click","ſelector":"#x","input":{}},"outcome":{"ok":true},
			"observation":{"ſtate":{"currentScreen":"home"},"testIds":[{"teſtId":"k","tag":"b"},{"\u212aey":"v"}],"a11y":{"nodes":[{"ref":"e1","ſ":"x"}]}}}`,
		"escaped strings": `{` + base + `"tool":{"name":"mm_\u0063lick","target":{"testId":"a\"b"}},"outcome":{"ok":true},
			"observation":{"state":{"currentScreen":"h\u00e9me"},"testIds":[{"testId":"\ud83d\ude00","tag":"\n"}]}}`,
		"testIds not an array": `{` + base + `"tool":{"name":"mm_click"},"outcome":{"ok":true},"observation":{"testIds":"send"}}`,
		"testId item a number": `{` + base + `"tool":{"name":"mm_click"},"outcome":{"ok":true},"observation":{"testIds":[1,{"testId":"a"}]}}`,
		"node a string":        `{` + base + `"tool":{"name":"mm_click"},"outcome":{"ok":true},"observation":{"a11y":{"nodes":["e1"]}}}`,
		"tool a string":        `{` + base + `"tool":"mm_click","outcome":{"ok":true}}`,
		"state wrong type":     `{` + base + `"tool":{"name":"mm_click"},"outcome":{"ok":true},"observation":{"state":{"currentScreen":3,"other":[]}}}`,
		"observation null":     `{` + base + `"tool":{"name":"mm_click"},"outcome":{"ok":true},"observation":null,"labels":null}`,
		"no outcome":           `{` + base + `"tool":{"name":"mm_click"},"result":{"ok":true}}`,
		"schemaVersion 2":      `{"schemaVersion":2,"timestamp":"2026-01-15T11:00:00.000Z","tool":{"name":"mm_click"},"outcome":{"ok":true}}`,
		"an array":             `[1,2]`,
	}
	parses := map[string]bool{"usual": true, "other cases": true, "both spellings": true, "non-ASCII names": true,
		"escaped strings": true, "observation null": true}
	for name, rec := range cases {
		t.Run(name, func(t *testing.T) {
			var whole, view string
			if err := conn.QueryRow(ctx, `SELECT $1::jsonb::text, mmcp_record_view($1::jsonb)::text`, rec).Scan(&whole, &view); err != nil {
				t.Fatal(err)
			}
			if len(view) > len(whole) || name == "usual" && len(view) >= len(whole) {
				t.Errorf("view not shorter than the record:\n%s\n%s", view, whole)
			}
			a, errA := answers(t, whole)
			b, errB := answers(t, view)
			if (errA == nil) != parses[name] {
				t.Fatalf("record parses: %v, want %v", errA, parses[name])
			}
			if (errA == nil) != (errB == nil) {
				t.Fatalf("record parses: %v, view parses: %v\nview: %s", errA, errB, view)
			}
			if a != b {
				t.Errorf("answers differ\nrecord: %s\nview:   %s\nview record: %s", a, b, view)
			}
		})
	}
}

// answers is what the queries answer over a view holding one record.
func answers(t *testing.T, rec string) (string, error) {
	t.Helper()
	ctx := context.Background()
	v := knowledge.NewView(t0)
	v.AddSession("mm-a", nil, time.Time{})
	if err := v.AddStep("mm-a", "s1.json", []byte(rec)); err != nil {
		return "", err
	}
	last, err := v.Last(ctx, "", knowledge.LastQuery{N: 5, Scope: knowledge.AllScope})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := v.Summarize(ctx, "", knowledge.SummarizeQuery{SessionID: "mm-a"})
	if err != nil {
		t.Fatal(err)
	}
	var outs []any
	for _, screen := range []string{"home", "send", "unknown"} {
		pk, err := v.PriorKnowledge(ctx, "mm-b", knowledge.PriorQuery{Screen: screen, URL: "chrome-extension://a/home.html#/send",
			TestIDs:   []observation.TestIDItem{{TestID: "send-button"}, {TestID: "amount"}, {TestID: "a"}, {TestID: "b"}},
			A11yNodes: []observation.A11yNode{{Role: "button", Name: "Send"}, {Role: "textbox", Name: "Amount"}}})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, pk)
	}
	s, err := v.Search(ctx, "", knowledge.SearchQuery{Query: "send amount click swap", Scope: knowledge.AllScope})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal([]any{last, sum, outs, s})
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil
}
