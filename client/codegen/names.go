package codegen

import (
	"strings"
	"unicode"
)

// initialisms are written in capitals in Go names (Go's lint list, plus a
// few wallet words).
var initialisms = map[string]bool{
	"abi": true, "api": true, "css": true, "dns": true, "eth": true, "html": true,
	"http": true, "https": true, "id": true, "ip": true, "json": true, "ok": true, "rpc": true,
	"srp": true, "sql": true, "tcp": true, "ui": true, "uri": true, "url": true,
	"uuid": true, "xml": true,
}

// goName turns a JSON or tool name into an exported Go identifier:
// "a11yRef" -> "A11yRef", "session_id" -> "SessionID", "run.file" -> "RunFile".
func goName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if initialisms[strings.ToLower(w)] {
			b.WriteString(strings.ToUpper(w))
			continue
		}
		r := []rune(w)
		b.WriteString(string(unicode.ToUpper(r[0])) + string(r[1:]))
	}
	out := b.String()
	if out == "" {
		return "X"
	}
	if unicode.IsDigit([]rune(out)[0]) {
		return "X" + out
	}
	return out
}

// words splits s at non-alphanumerics and at lower-to-upper case changes.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = nil
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])) {
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// splitTool returns a tool's namespace ("" for the root) and method name:
// the prefix "<prefix>_" is stripped, then the name splits on its first dot.
func splitTool(name, prefix string) (ns, method string) {
	rest := name
	if prefix != "" && strings.HasPrefix(rest, prefix+"_") && len(rest) > len(prefix)+1 {
		rest = rest[len(prefix)+1:]
	}
	if i := strings.IndexByte(rest, '.'); i > 0 && i < len(rest)-1 {
		return rest[:i], rest[i+1:]
	}
	return "", rest
}
