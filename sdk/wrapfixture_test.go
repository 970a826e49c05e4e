package sdk

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestWrapFixture: a custom fixture is the data alone or a whole
// {data, meta}; one without meta gets FixtureVersion; anything but an
// object is CodeInvalidInput.
func TestWrapFixture(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in, want string
	}{
		"data only":          {`{"PreferencesController":{"theme":"dark"}}`, `{"data":{"PreferencesController":{"theme":"dark"}},"meta":{"version":74}}`},
		"whole kept as is":   {`{"data":{"A":{}},"meta":{"version":90,"storageKind":"split"}}`, `{"data":{"A":{}},"meta":{"version":90,"storageKind":"split"}}`},
		"whole without meta": {`{"data":{"A":{}}}`, `{"data":{"A":{}},"meta":{"version":74}}`},
		"keeps storage":      {`{"data":{},"meta":{"version":74},"_storageService":{"k":1}}`, `{"data":{},"meta":{"version":74},"_storageService":{"k":1}}`},
	}
	for name, tc := range cases {
		got, err := WrapFixture(json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !jsonEqual(t, got, []byte(tc.want)) {
			t.Errorf("%s: got %s, want %s", name, got, tc.want)
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `null`, `{"data":[1]}`, `{`} {
		if _, err := WrapFixture(json.RawMessage(bad)); AsError(err) == nil || AsError(err).Code != CodeInvalidInput {
			t.Errorf("%s: err = %v, want %s", bad, err, CodeInvalidInput)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %s", a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return reflect.DeepEqual(x, y)
}
