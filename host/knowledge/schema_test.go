package knowledge

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mmcp-dev/mmcp/host/schemas"
)

func TestValidateRecord(t *testing.T) {
	t.Parallel()
	r := step("mm-ok-1", t0, "mm_click", "home", "send", true, "send")
	r.Labels = nil // the cases below add their own
	good := mustJSON(t, r)
	if err := ValidateRecord([]byte(good)); err != nil {
		t.Fatalf("good record: %v", err)
	}
	withLabels := strings.Replace(good, `"schemaVersion":1`, `"schemaVersion":1,"labels":["interaction"]`, 1)
	if err := ValidateRecord([]byte(withLabels)); err != nil {
		t.Fatalf("labels: %v", err)
	}
	bad := map[string]string{
		"not json":          `{`,
		"schemaVersion 2":   strings.Replace(good, `"schemaVersion":1`, `"schemaVersion":2`, 1),
		"unknown field":     strings.Replace(good, `"schemaVersion":1`, `"schemaVersion":1,"context":"e2e"`, 1),
		"bad screen":        strings.Replace(good, `"currentScreen":"home"`, `"currentScreen":"send"`, 1),
		"bad timestamp":     strings.Replace(good, `"timestamp":"2026-01-15T12:00:00.000Z"`, `"timestamp":"yesterday"`, 1),
		"bad a11y ref":      strings.Replace(good, `"target":{"testId":"send"}`, `"target":{"a11yRef":"x1"}`, 1),
		"missing outcome":   strings.Replace(good, `"outcome":{"ok":true},`, ``, 1),
		"short session id":  strings.Replace(good, `"sessionId":"mm-ok-1"`, `"sessionId":"mm"`, 1),
		"labels not string": strings.Replace(good, `"schemaVersion":1`, `"schemaVersion":1,"labels":[1]`, 1),
	}
	for name, b := range bad {
		if b == good {
			t.Fatalf("%s: replacement did not apply", name)
		}
		if err := ValidateRecord([]byte(b)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestToolSchemas compiles each tool schema the way the MCP layer does
// (so the $refs resolve) and checks the knowledge tools' arguments against it.
func TestToolSchemas(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		schema    string
		valid     []string
		invalid   []string
		defaultOf map[string]any
	}{
		"last": {string(schemas.Get("knowledge_last")),
			[]string{`{}`, `{"n":5,"scope":"all","filters":{"flowTag":"send","sinceHours":48}}`, `{"scope":{"sessionId":"mm-abc"}}`},
			[]string{`{"n":0}`, `{"n":201}`, `{"scope":"everything"}`, `{"scope":{"sessionId":"mm"}}`, `{"filters":{"sinceHours":721}}`, `{"x":1}`},
			map[string]any{"n": 20.0, "scope": "current"}},
		"search": {string(schemas.Get("knowledge_search")),
			[]string{`{"query":"send"}`, `{"query":"send","scope":"all","filters":{"flowTag":"send","gitBranch":"main"}}`},
			[]string{`{}`, `{"query":""}`, `{"query":"x","limit":101}`, `{"query":"x","filters":{"other":1}}`},
			map[string]any{"limit": 20.0, "scope": "all"}},
		"summarize": {string(schemas.Get("knowledge_summarize")),
			[]string{`{}`, `{"sessionId":"mm-abc"}`, `{"scope":{"sessionId":"mm-abc"}}`, `{"scope":"all"}`},
			[]string{`{"sessionId":"mm"}`, `{"scope":{"sessionId":"mm-abc","x":1}}`},
			map[string]any{"scope": "current"}},
		"sessions": {string(schemas.Get("knowledge_sessions")),
			[]string{`{}`, `{"limit":50,"filters":{"tag":"smoke"}}`},
			[]string{`{"limit":51}`, `{"scope":"all"}`},
			map[string]any{"limit": 10.0}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource("mem://"+name+".json", doc); err != nil {
				t.Fatal(err)
			}
			sch, err := c.Compile("mem://" + name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			check := func(args string, want bool) {
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
				if err != nil {
					t.Fatal(err)
				}
				if err := sch.Validate(inst); (err == nil) != want {
					t.Errorf("%s: valid=%v, want %v (%v)", args, err == nil, want, err)
				}
			}
			for _, a := range tc.valid {
				check(a, true)
			}
			for _, a := range tc.invalid {
				check(a, false)
			}
			var raw struct {
				Properties map[string]struct {
					Default any `json:"default"`
				} `json:"properties"`
			}
			if err := json.Unmarshal([]byte(tc.schema), &raw); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.defaultOf {
				if raw.Properties[k].Default != v {
					t.Errorf("default of %s = %v, want %v", k, raw.Properties[k].Default, v)
				}
			}
		})
	}
}

// specSchemaSHA256 is the SHA-256 of the StepRecord v1 schema the
// records' consumers validate against, canonical (keys sorted, no spaces, as encoding/json writes a
// map): the embedded schema is that schema plus the optional
// labels, nothing else, so a record valid here is valid for the spec.
const specSchemaSHA256 = "b25808701ec232147bc0df66935e63a8ba87664bb3287b17a398d922ca2ba480"

func TestSchemaIsTheSpecs(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(StepRecordSchema, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc["properties"].(map[string]any)
	if _, ok := props["labels"]; !ok {
		t.Fatal("the schema lost its labels")
	}
	delete(props, "labels")
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != specSchemaSHA256 {
		t.Fatalf("the embedded StepRecord schema differs from the spec's (sha256 %s, want %s): records must stay valid for the spec's own schema; carry extra facts in labels or session.json", got, specSchemaSHA256)
	}
}
