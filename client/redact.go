package client

import "github.com/mmcp-dev/mmcp/internal/redact"

// redactArgs returns a copy of args safe to log, by the rule the mmcp host
// applies to its own records (package internal/redact): values under
// secret-named arguments and every typed text ("text", at any depth,
// batches included) are withheld (the client cannot see the field the
// text goes into, so it never knows it is harmless), and other strings
// pass through the secret detector. It also returns the withheld strings,
// so that echoes of them are masked in results and errors.
func redactArgs(args map[string]any) (map[string]any, []string) {
	return redact.Args(args, false)
}

// scrub masks the withheld strings and any detected secret (a recovery
// phrase or private key shown on screen) in text logged from a result, an
// error or a sidecar.
func scrub(s string, secrets []string) string { return redact.Scrub(s, secrets) }
