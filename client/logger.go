package client

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mmcp-dev/mmcp/internal/redact"
)

// Logger defaults.
const (
	// DefaultThreshold is the largest result (in characters, after JSON
	// encoding) that is logged inline.
	DefaultThreshold = 200
	// DefaultSidecarDir is where large results go when sidecars are on.
	DefaultSidecarDir = ".mcp-log"
)

// LoggerOptions configures the JSONL call log.
type LoggerOptions struct {
	// Writer receives one JSON object per line. Nil means os.Stderr (never
	// stdout, which may be an MCP channel); use io.Discard to turn it off.
	Writer io.Writer
	// Threshold is the largest inline result in characters; 0 means
	// DefaultThreshold.
	Threshold int
	// Sidecars writes results over Threshold to SidecarDir/<seq>-<tool>.txt.
	Sidecars bool
	// SidecarDir is the sidecar directory; empty means DefaultSidecarDir.
	SidecarDir string
	// LogSecrets turns off the redaction of typed text, passwords, recovery
	// phrases and private keys. Only for throwaway test wallets.
	LogSecrets bool
	// HCLog receives the logger's own problems (a sidecar that cannot be
	// written); nil discards them.
	HCLog hclog.Logger
	// SeqOffset is added to every _seq (and sidecar name): a log appended
	// to an existing one continues its numbering (see LastSeq).
	SeqOffset int64
}

// LastSeq is the highest _seq of the JSONL call log at path: 0 when the
// file does not exist or has no call. A Logger appending to the file
// continues after it with SeqOffset.
func LastSeq(path string) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var last int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var line struct {
			Seq int64 `json:"_seq"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Seq > last {
			last = line.Seq
		}
	}
	return last, sc.Err()
}

// Logger writes the call log: a "before" line when a call starts and
// an "after" line when it ends, with keys in the order name, arguments,
// _phase, _seq, _ms, _ok, _error, _result. Filtering the "before" lines and
// dropping the _ fields gives a replayable sequence (see RunSequence).
// A Logger is safe for concurrent use.
type Logger struct {
	mu   sync.Mutex
	w    io.Writer
	opts LoggerOptions
	hlog hclog.Logger
}

// NewLogger returns a Logger with the defaults of LoggerOptions filled in.
func NewLogger(opts LoggerOptions) *Logger {
	if opts.Writer == nil {
		opts.Writer = os.Stderr
	}
	if opts.Threshold <= 0 {
		opts.Threshold = DefaultThreshold
	}
	if opts.SidecarDir == "" {
		opts.SidecarDir = DefaultSidecarDir
	}
	h := opts.HCLog
	if h == nil {
		h = hclog.NewNullLogger()
	}
	return &Logger{w: opts.Writer, opts: opts, hlog: h}
}

// Before logs the intent line of call seq.
func (l *Logger) Before(seq int64, name string, args map[string]any) {
	seq += l.opts.SeqOffset
	var b lineBuilder
	l.head(&b, name, args, "before", seq)
	l.write(b.end())
}

// After logs the result line of call seq: err is a transport failure, res
// the tool's answer (an error result or a failed envelope logs _ok false).
func (l *Logger) After(seq int64, name string, args map[string]any, d time.Duration, res *mcp.CallToolResult, err error) {
	seq += l.opts.SeqOffset
	var b lineBuilder
	secrets := l.head(&b, name, args, "after", seq)
	b.field("_ms", d.Milliseconds())
	switch {
	case err != nil:
		b.field("_ok", false)
		b.field("_error", l.scrub(err.Error(), secrets))
	case res == nil:
		b.field("_ok", true)
	default:
		if rerr := ResultError(res); rerr != nil {
			b.field("_ok", false)
			b.field("_error", l.scrub(rerr.Error(), secrets))
			if !res.IsError {
				b.field("_result", l.result(seq, name, res, secrets))
			}
		} else {
			b.field("_ok", true)
			b.field("_result", l.result(seq, name, res, secrets))
		}
	}
	l.write(b.end())
}

// head writes the keys shared by both lines and returns the secrets it
// redacted from args.
func (l *Logger) head(b *lineBuilder, name string, args map[string]any, phase string, seq int64) []string {
	logged := args
	var secrets []string
	if !l.opts.LogSecrets {
		logged, secrets = redactArgs(args)
	}
	if logged == nil {
		logged = map[string]any{}
	}
	b.field("name", name)
	b.field("arguments", logged)
	b.field("_phase", phase)
	b.field("_seq", seq)
	return secrets
}

// scrub masks secrets in logged text unless LogSecrets is set.
func (l *Logger) scrub(s string, secrets []string) string {
	if l.opts.LogSecrets {
		return s
	}
	return scrub(s, secrets)
}

func (l *Logger) write(line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(line); err != nil {
		l.hlog.Warn("write call log", "error", err)
	}
}

// result renders res for the _result field: small text inline (parsed when
// it is JSON), large text as a summary (and a sidecar), images as a summary.
// Secrets from the arguments are masked in the text (and the sidecars).
func (l *Logger) result(seq int64, name string, res *mcp.CallToolResult, secrets []string) any {
	parts := make([]any, 0, len(res.Content))
	texts := 0
	for _, c := range res.Content {
		if t, ok := asText(c); ok {
			texts++
			text := t.Text
			if !l.opts.LogSecrets {
				// A clipboard read answers what was pasted: withheld.
				var read []string
				text, read = redact.ReadBack(name, text)
				secrets = append(secrets, read...)
			}
			parts = append(parts, l.text(seq, name, texts, l.scrub(text, secrets)))
			continue
		}
		if img, ok := asImage(c); ok {
			n := base64.StdEncoding.DecodedLen(len(img.Data))
			if raw, err := base64.StdEncoding.DecodeString(img.Data); err == nil {
				n = len(raw)
			}
			parts = append(parts, fmt.Sprintf("[image %s %d bytes]", img.MIMEType, n))
			continue
		}
		parts = append(parts, fmt.Sprintf("[%T]", c))
	}
	switch len(parts) {
	case 0:
		if res.StructuredContent != nil {
			if b, err := json.Marshal(res.StructuredContent); err == nil {
				return l.text(seq, name, 1, l.scrub(string(b), secrets))
			}
		}
		return nil
	case 1:
		return parts[0]
	}
	return parts
}

// text renders one text content; nth numbers the text parts of a result so
// that each large one gets its own sidecar.
func (l *Logger) text(seq int64, name string, nth int, s string) any {
	var inline any = s
	encoded, _ := json.Marshal(s)
	if trimmed := strings.TrimSpace(s); trimmed != "" && json.Valid([]byte(trimmed)) {
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(trimmed)) == nil {
			inline = json.RawMessage(compact.Bytes())
			encoded = compact.Bytes()
		}
	}
	if utf8.RuneCount(encoded) <= l.opts.Threshold {
		return inline
	}
	n := utf8.RuneCountInString(s)
	if !l.opts.Sidecars {
		return fmt.Sprintf("[text %d chars]", n)
	}
	path, err := l.sidecar(seq, name, nth, s)
	if err != nil {
		l.hlog.Warn("write sidecar", "path", path, "error", err)
		return fmt.Sprintf("[text %d chars, sidecar failed]", n)
	}
	return fmt.Sprintf("[text %d chars -> %s]", n, path)
}

// SidecarPath is the file a large result of call seq goes to:
// <dir>/<seq>-<tool>.txt (the tool name made safe for a file name).
func SidecarPath(dir string, seq int64, tool string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, tool)
	return filepath.Join(dir, fmt.Sprintf("%d-%s.txt", seq, safe))
}

func (l *Logger) sidecar(seq int64, name string, nth int, s string) (string, error) {
	path := SidecarPath(l.opts.SidecarDir, seq, name)
	if nth > 1 {
		path = strings.TrimSuffix(path, ".txt") + fmt.Sprintf("-%d.txt", nth)
	}
	if err := os.MkdirAll(l.opts.SidecarDir, 0o700); err != nil {
		return path, err
	}
	return path, os.WriteFile(path, []byte(s), 0o600)
}

// lineBuilder writes one JSON object with keys in insertion order.
type lineBuilder struct {
	buf bytes.Buffer
}

func (b *lineBuilder) field(key string, v any) {
	if b.buf.Len() == 0 {
		b.buf.WriteByte('{')
	} else {
		b.buf.WriteByte(',')
	}
	writeJSON(&b.buf, key)
	b.buf.WriteByte(':')
	writeJSON(&b.buf, v)
}

func (b *lineBuilder) end() []byte {
	b.buf.WriteString("}\n")
	return b.buf.Bytes()
}

// writeJSON encodes v without HTML escaping and without a newline.
func writeJSON(buf *bytes.Buffer, v any) {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tmp.Reset()
		enc.Encode(fmt.Sprintf("[unencodable: %v]", err))
	}
	buf.Write(bytes.TrimSuffix(tmp.Bytes(), []byte("\n")))
}
