package knowledge

import (
	"fmt"
	"os"
	"strings"
)

// EnvRecordAudit names the file SetAudit appends to: the host reads it
// at start (the e2e suite sets it for every host it runs).
const EnvRecordAudit = "MMCP_RECORD_AUDIT"

// SetAudit makes the store append one line to the file at path for each
// step record it writes ("ok <tool> <file>") or refuses because it does
// not validate against StepRecordSchema ("refused <tool> <session>:
// <why>"); "" turns it off. Call it before the first Record. Lines are
// appended with O_APPEND, so several hosts may share the file.
func (s *Store) SetAudit(path string) { s.audit = path }

// audited appends line to the audit file, when there is one.
func (s *Store) audited(format string, a ...any) {
	if s.audit == "" {
		return
	}
	f, err := os.OpenFile(s.audit, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		s.log.Warn("record audit", "error", err)
		return
	}
	defer f.Close()
	line := strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", " ")
	if _, err := f.WriteString(line + "\n"); err != nil {
		s.log.Warn("record audit", "error", err)
	}
}
