package testutil

import (
	"encoding/json"
	"reflect"
	"testing"
)

// JSONEqual reports whether a and b are the same JSON value (key order
// and spacing aside); either not being JSON fails the test.
func JSONEqual(t testing.TB, a, b []byte) bool {
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
