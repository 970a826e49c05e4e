package sdk

import (
	"reflect"
	"testing"
)

func TestWorkspaceDirs(t *testing.T) {
	for name, tc := range map[string]struct {
		ws    string
		extra []string
		want  []string
	}{
		"workspace":    {"/ws", []string{"more", "/abs/x/"}, []string{"/ws/.mmcp/mocks", "/ws/more", "/abs/x"}},
		"no workspace": {"", []string{"more", "/abs"}, []string{"/abs"}},
	} {
		if got := WorkspaceDirs(tc.ws, "mocks", tc.extra); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}
