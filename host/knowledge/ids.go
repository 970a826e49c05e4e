package knowledge

import (
	"regexp"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk"
)

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{3,127}$`)

// ValidSessionID reports whether id can name a session directory: 4 to 128
// letters, digits, '.', '_' or '-', starting with a letter or digit, and no
// "..". Such an id can never leave the store's root.
func ValidSessionID(id string) bool {
	return sessionIDPattern.MatchString(id) && !strings.Contains(id, "..")
}

// checkSessionID returns MM_INVALID_INPUT when id is not a ValidSessionID.
func checkSessionID(field, id string) error {
	if ValidSessionID(id) {
		return nil
	}
	return sdk.Errorf(sdk.CodeInvalidInput,
		"%s %q is not a valid session id: use 4-128 letters, digits, '.', '_' or '-'", field, id).
		WithDetails(map[string]any{"field": field})
}
