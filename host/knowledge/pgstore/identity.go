package pgstore

import (
	"context"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Identity is the repository identity records are stored under: project
// when set (--knowledge-project), else the workspace's git remote
// "origin" URL without any user or password in it, else the workspace's
// directory name, else "default".
func Identity(workspace, project string) string {
	if project != "" {
		return project
	}
	if workspace == "" {
		return "default"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", workspace, "config", "--get", "remote.origin.url").Output()
	if remote := strings.TrimSpace(string(out)); err == nil && remote != "" {
		return stripUser(remote)
	}
	return filepath.Base(workspace)
}

// stripUser drops the credentials of an https remote
// (https://user:token@host/...).
func stripUser(remote string) string {
	u, err := url.Parse(remote)
	if err != nil || u.User == nil || u.Scheme == "" {
		return remote
	}
	u.User = nil
	return u.String()
}
