package knowledge

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fastParseSeeds are records and near-records the fast decoder must read
// exactly as encoding/json does, or hand over to it.
func fastParseSeeds(t testing.TB) []string {
	r := step("mm-seed-1", t0, "mm_click", "home", "send-button", false, "send-button", "buy")
	r.Observation.A11y.Nodes = append(r.Observation.A11y.Nodes, a11y("e1", "button", "Send ✓"))
	r.Labels = []string{"interaction", "error-recovery"}
	r.Artifacts = &Artifacts{Screenshot: &Screenshot{Path: "a.png", Width: 1, Height: 2}}
	good := mustJSON(t, r)
	return []string{
		good,
		strings.Replace(good, `"timestamp"`, `"Timestamp"`, 1),
		strings.Replace(good, `"labels":[`, `"labels":null,"labels":[`, 1),
		strings.Replace(good, `"send-button"`, `"send\u002dbutton"`, 1),
		strings.Replace(good, `"schemaVersion":1`, `"schemaVersion":1.0`, 1),
		strings.Replace(good, `"schemaVersion":1`, `"schemaVersion":null`, 1),
		strings.Replace(good, `"outcome":{`, `"outcome":null,"x":{`, 1),
		strings.Replace(good, `"testIds":[`, `"testIds":[null,`, 1),
		strings.Replace(good, `"state":{`, `"state":null,"y":{`, 1),
		strings.Replace(good, `"ok":false`, `"ok":null`, 1),
		strings.Replace(good, `"name":"mm_click"`, `"name":5`, 1),
		good + " ",
		good + "x",
		good[:len(good)/2],
		`{}`, `null`, `[]`, `{"observation": "x"}`, `{"a": 01}`, `{"a": -}`, `{"a": "\x01"}`,
		`{"schemaVersion": 1, "tool": {"name": "mm_x", "target": null}, "outcome": {"ok": true, "error": null}, "observation": null, "artifacts": null, "labels": [null, "a"]}`,
		"{\"tool\": {\"name\": \"\xff\xfe\"}}",
	}
}

func TestFastParseMatchesEncodingJSON(t *testing.T) {
	for i, s := range fastParseSeeds(t) {
		checkFastParse(t, i, []byte(s))
	}
}

func FuzzFastParse(f *testing.F) {
	for _, s := range fastParseSeeds(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkFastParse(t, 0, b) })
}

func checkFastParse(t *testing.T, i int, b []byte) {
	t.Helper()
	fast, ok := fastParseStep(b)
	var slow rawStep
	err := json.Unmarshal(b, &slow)
	if !ok {
		return // encoding/json decides
	}
	if err != nil {
		t.Fatalf("seed %d: fast parser accepted what encoding/json refuses (%v):\n%s", i, err, b)
	}
	if !reflect.DeepEqual(fast, &slow) {
		t.Fatalf("seed %d: fast %+v\nslow %+v\n%s", i, fast, &slow, b)
	}
}
