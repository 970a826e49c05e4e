package client

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// secretArgPattern matches argument names whose value is always a secret.
var secretArgPattern = regexp.MustCompile(`(?i)password|passphrase|mnemonic|^srp$|^seed$|seedphrase|recoveryphrase|private_?key`)

// secretHintPattern matches a target (testId, selector, a11yRef) or another
// argument that suggests the typed text is a secret.
var secretHintPattern = regexp.MustCompile(`(?i)pass(word|phrase)?|pwd|srp|seed|mnemonic|recovery|secret|private[-_ ]?key|import-?account`)

// hexKeyPattern matches a raw secp256k1 private key.
var hexKeyPattern = regexp.MustCompile(`^(0x)?[0-9a-fA-F]{64}$`)

// mnemonicPattern matches 12 to 24 lowercase words, the shape of an SRP.
var mnemonicPattern = regexp.MustCompile(`^\s*[a-z]+(\s+[a-z]+){11,23}\s*$`)

// redacted is what a secret is logged as.
func redacted(s string) string {
	return fmt.Sprintf("[redacted %d chars]", utf8.RuneCountInString(s))
}

// redactArgs returns a copy of args safe to log: every secret-named argument
// (at any depth) is replaced, and the "text" argument is replaced when the
// tool, its target or another argument suggests a secret field, or when the
// text itself looks like a private key or a recovery phrase.
//
// It also returns the secret strings it replaced, so the logger can mask
// them in the result (a server may echo what it was sent).
func redactArgs(tool string, args map[string]any) (map[string]any, []string) {
	if args == nil {
		return nil, nil
	}
	var secrets []string
	out := redactMap(args, &secrets)
	if text, ok := args["text"].(string); ok && secretText(tool, args, text) {
		out["text"] = redacted(text)
		secrets = append(secrets, text)
	}
	return out, secrets
}

// minScrubLen is the shortest secret masked inside results: shorter ones
// would mangle unrelated text.
const minScrubLen = 4

// scrub masks every secret in s.
func scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) >= minScrubLen {
			s = strings.ReplaceAll(s, sec, redacted(sec))
		}
	}
	return s
}

func secretText(tool string, args map[string]any, text string) bool {
	if hexKeyPattern.MatchString(strings.TrimSpace(text)) || mnemonicPattern.MatchString(text) {
		return true
	}
	if secretHintPattern.MatchString(tool) {
		return true
	}
	for k, v := range args {
		if k == "text" {
			continue
		}
		if secretHintPattern.MatchString(k) {
			return true
		}
		if s, ok := v.(string); ok && secretHintPattern.MatchString(s) {
			return true
		}
	}
	return false
}

func redactMap(m map[string]any, secrets *[]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if secretArgPattern.MatchString(k) {
			if s, ok := v.(string); ok {
				*secrets = append(*secrets, s)
			}
			out[k] = redactValue(v)
			continue
		}
		out[k] = redactNested(v, secrets)
	}
	return out
}

func redactNested(v any, secrets *[]string) any {
	switch t := v.(type) {
	case map[string]any:
		return redactMap(t, secrets)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = redactNested(e, secrets)
		}
		return out
	}
	return v
}

// redactValue replaces a secret value of any type.
func redactValue(v any) any {
	switch t := v.(type) {
	case string:
		return redacted(t)
	case nil:
		return nil
	default:
		return "[redacted]"
	}
}
