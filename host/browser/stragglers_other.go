//go:build !linux

package browser

import "context"

// killStragglers is a no-op without /proc.
func killStragglers(context.Context, string) {}
