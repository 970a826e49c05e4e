package knowledge

import (
	"path/filepath"
	"time"
)

// ScreenshotPath is where session sessionID keeps the screenshot named
// name (a plain file name, see browser.ScreenshotName) taken at t:
// <root>/<sessionId>/screenshots/<timestamp>-<name>.png, so
// that two sessions, or two shots of one name, never share a file.
func (s *Store) ScreenshotPath(sessionID, name string, t time.Time) string {
	return filepath.Join(s.root, sessionID, "screenshots", fileTime(t)+"-"+name+".png")
}
