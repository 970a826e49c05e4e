package sdk

import "path/filepath"

// WorkspaceDirs lists the directories a plugin reads its workspace files
// from, in order: <workspace>/.mmcp/<sub>, then extra (a setting's
// directories, relative to the workspace unless absolute). Without a
// workspace only absolute directories count: a plugin never looks in its
// working directory.
func WorkspaceDirs(workspace, sub string, extra []string) []string {
	var dirs []string
	if workspace != "" {
		dirs = append(dirs, filepath.Join(workspace, ".mmcp", sub))
	}
	for _, d := range extra {
		switch {
		case filepath.IsAbs(d):
			dirs = append(dirs, filepath.Clean(d))
		case workspace != "":
			dirs = append(dirs, filepath.Join(workspace, d))
		}
	}
	return dirs
}
