package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// yarnVersion is the Yarn version of the workspace repo for the step
// records: the version its package.json declares in packageManager
// ("yarn@4.2.2+sha512..." is 4.2.2, what corepack runs there), "" when it
// declares another package manager, else the yarn on PATH.
func yarnVersion(repo string) string {
	if name, version, ok := declaredPackageManager(repo); ok {
		if name == "yarn" {
			return version
		}
		return ""
	}
	return cmdOutput("", "yarn", "--version")
}

// declaredPackageManager reads the packageManager field of repo's
// package.json: its name and version (without corepack's hash).
func declaredPackageManager(repo string) (name, version string, ok bool) {
	if repo == "" {
		return "", "", false
	}
	b, err := os.ReadFile(filepath.Join(repo, "package.json"))
	if err != nil {
		return "", "", false
	}
	var pkg struct {
		PackageManager string `json:"packageManager"`
	}
	if json.Unmarshal(b, &pkg) != nil || pkg.PackageManager == "" {
		return "", "", false
	}
	name, version, found := strings.Cut(pkg.PackageManager, "@")
	if !found || name == "" || version == "" {
		return "", "", false
	}
	version, _, _ = strings.Cut(version, "+")
	return name, version, true
}
