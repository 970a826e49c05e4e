package knowledge

import (
	"encoding/json"
	"testing"

	"github.com/mmcp-dev/mmcp/host/schemas"
)

// The Go API's defaults for a zero value are the tools' schema defaults:
// one number in two places, kept equal here.
func TestDefaultsMatchSchemas(t *testing.T) {
	for _, c := range []struct {
		tool, prop string
		goDefault  int
	}{
		{"knowledge_last", "n", DefaultLastN},
		{"knowledge_search", "limit", DefaultSearchLimit},
		{"knowledge_sessions", "limit", DefaultSessionsLimit},
	} {
		var s struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(schemas.Get(c.tool), &s); err != nil {
			t.Fatal(err)
		}
		var d int
		if err := json.Unmarshal(s.Properties[c.prop].Default, &d); err != nil || d != c.goDefault {
			t.Errorf("%s.%s: schema default %s, Go default %d", c.tool, c.prop, s.Properties[c.prop].Default, c.goDefault)
		}
	}
}
