package sdk_test

import (
	"encoding/json"
	"testing"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
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
		got, err := sdk.WrapFixture(json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !testutil.JSONEqual(t, got, []byte(tc.want)) {
			t.Errorf("%s: got %s, want %s", name, got, tc.want)
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `null`, `{"data":[1]}`, `{`} {
		if _, err := sdk.WrapFixture(json.RawMessage(bad)); sdk.AsError(err) == nil || sdk.AsError(err).Code != sdk.CodeInvalidInput {
			t.Errorf("%s: err = %v, want %s", bad, err, sdk.CodeInvalidInput)
		}
	}
}
