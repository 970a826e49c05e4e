package knowledge

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fastParseStep decodes the rawStep fields of a StepRecord in one pass
// over b, several times faster than encoding/json on records full of
// testids and accessibility nodes it does not keep. It validates the whole
// document as JSON. It gives up (ok=false) on anything unusual (a type
// mismatch, an escaped or non-UTF-8 string in a kept field, a non-integer
// schemaVersion), and the caller falls back to encoding/json, so the
// result always equals what encoding/json would produce.
func fastParseStep(b []byte) (r *rawStep, ok bool) {
	p := &jparser{b: b}
	r = &rawStep{}
	if !p.object(func(key string) bool {
		switch key {
		case "schemaVersion":
			if p.null() {
				r.SchemaVersion = nil
				return true
			}
			n, ok := p.integer()
			r.SchemaVersion = &n
			return ok
		case "timestamp":
			return p.str(&r.Timestamp)
		case "sessionId":
			return p.str(&r.SessionID)
		case "tool":
			return p.object(func(k string) bool {
				switch k {
				case "name":
					return p.str(&r.Tool.Name)
				case "target":
					if p.null() {
						r.Tool.Target = nil
						return true
					}
					t := &Target{}
					r.Tool.Target = t
					return p.strFields(strField{"selector", &t.Selector}, strField{"testId", &t.TestID}, strField{"a11yRef", &t.A11yRef})
				}
				return p.skip()
			})
		case "outcome":
			if p.null() {
				r.Outcome = nil
				return true
			}
			if r.Outcome == nil {
				r.Outcome = &struct {
					OK    bool `json:"ok"`
					Error *struct {
						Code    string `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}{}
			}
			o := r.Outcome
			return p.object(func(k string) bool {
				switch k {
				case "ok":
					return p.boolean(&o.OK)
				case "error":
					if p.null() {
						o.Error = nil
						return true
					}
					if o.Error == nil {
						o.Error = &struct {
							Code    string `json:"code"`
							Message string `json:"message"`
						}{}
					}
					e := o.Error
					return p.strFields(strField{"code", &e.Code}, strField{"message", &e.Message})
				}
				return p.skip()
			})
		case "labels":
			r.Labels = nil
			if p.null() {
				return true
			}
			r.Labels = []string{}
			return p.array(func() bool {
				var l string
				ok := p.str(&l)
				r.Labels = append(r.Labels, l)
				return ok
			})
		case "observation":
			return p.observation(r)
		case "artifacts":
			// Small and rare: let encoding/json decode it exactly.
			return p.captureRaw()
		}
		return p.skip()
	}) {
		return nil, false
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, false
	}
	if p.art != nil && json.Unmarshal(p.art, &r.Artifacts) != nil {
		return nil, false
	}
	return r, true
}

// observation decodes the observation object into r.
func (p *jparser) observation(r *rawStep) bool {
	if p.null() {
		r.Observation = nil
		return true
	}
	if r.Observation == nil {
		r.Observation = new(observationFields)
	}
	o := r.Observation
	return p.object(func(k string) bool {
		switch k {
		case "state":
			if p.null() {
				return true
			}
			return p.strFields(strField{"currentScreen", &o.State.CurrentScreen}, strField{"currentUrl", &o.State.CurrentURL})
		case "testIds":
			o.TestIDs = nil
			if p.null() {
				return true
			}
			o.TestIDs = make([]testIDField, 0, 16)
			return p.array(func() bool {
				var t testIDField
				if p.null() {
					o.TestIDs = append(o.TestIDs, t)
					return true
				}
				ok := p.strFields(strField{"testId", &t.TestID})
				o.TestIDs = append(o.TestIDs, t)
				return ok
			})
		case "a11y":
			if p.null() {
				return true
			}
			return p.object(func(k string) bool {
				if k != "nodes" {
					return p.skip()
				}
				o.A11y.Nodes = nil
				if p.null() {
					return true
				}
				o.A11y.Nodes = make([]a11yField, 0, 16)
				return p.array(func() bool {
					var n a11yField
					if p.null() {
						o.A11y.Nodes = append(o.A11y.Nodes, n)
						return true
					}
					ok := p.strFields(strField{"ref", &n.Ref}, strField{"role", &n.Role}, strField{"name", &n.Name})
					o.A11y.Nodes = append(o.A11y.Nodes, n)
					return ok
				})
			})
		}
		return p.skip()
	})
}

// strField is a string field of an object that the parse keeps.
type strField struct {
	key string
	dst *string
}

// strFields parses an object, keeping the string fields named in fields
// and skipping every other field.
func (p *jparser) strFields(fields ...strField) bool {
	return p.object(func(k string) bool {
		for _, f := range fields {
			if f.key == k {
				return p.str(f.dst)
			}
		}
		return p.skip()
	})
}

// jparser is a validating JSON scanner over one document.
type jparser struct {
	b   []byte
	i   int
	art []byte
}

func (p *jparser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *jparser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// null consumes a null literal if one is next.
func (p *jparser) null() bool {
	return p.peek() == 'n' && p.lit("null")
}

func (p *jparser) boolean(v *bool) bool {
	switch p.peek() {
	case 't':
		*v = true
		return p.lit("true")
	case 'f':
		*v = false
		return p.lit("false")
	case 'n':
		return p.lit("null")
	}
	return false
}

// rawString scans a string and returns its contents without quotes and
// whether it is plain (no escapes, valid UTF-8).
func (p *jparser) rawString() (s []byte, plain, ok bool) {
	if p.peek() != '"' {
		return nil, false, false
	}
	p.i++
	start := p.i
	plain = true
	ascii := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s = p.b[start:p.i]
			p.i++
			if !ascii && !utf8.Valid(s) {
				plain = false
			}
			return s, plain, true
		case c == '\\':
			plain = false
			p.i++
			if p.i >= len(p.b) {
				return nil, false, false
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				if p.i+5 > len(p.b) {
					return nil, false, false
				}
				for _, h := range p.b[p.i+1 : p.i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				p.i += 5
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		default:
			if c >= 0x80 {
				ascii = false
			}
			p.i++
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// str decodes a string (or null, which leaves v unchanged as
// encoding/json does).
func (p *jparser) str(v *string) bool {
	if p.null() {
		return true
	}
	start := p.i
	s, plain, ok := p.rawString()
	if !ok {
		return false
	}
	if plain {
		*v = string(s)
		return true
	}
	return json.Unmarshal(p.b[start:p.i], v) == nil
}

// integer decodes a JSON integer that fits an int.
func (p *jparser) integer() (int, bool) {
	p.ws()
	start := p.i
	if !p.number() {
		return 0, false
	}
	n, err := strconv.Atoi(string(p.b[start:p.i]))
	return n, err == nil
}

// number scans a JSON number.
func (p *jparser) number() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	p.i = i
	return true
}

// object walks an object, calling field for each key with the scanner
// positioned at the value; field must consume the value. A non-object
// (null included) fails: callers check null first where it is allowed.
func (p *jparser) object(field func(key string) bool) bool {
	if p.peek() != '{' {
		return false
	}
	p.i++
	if p.peek() == '}' {
		p.i++
		return true
	}
	var seenBuf [16]string
	seen := seenBuf[:0]
	for {
		k, plain, ok := p.rawString()
		if !ok || !plain || !plainKey(k) {
			return false
		}
		key := string(k)
		// encoding/json merges duplicate keys; give up on them instead.
		for _, s := range seen {
			if s == key {
				return false
			}
		}
		seen = append(seen, key)
		if p.peek() != ':' {
			return false
		}
		p.i++
		if !field(key) {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// keyNames are the field names fastParseStep decodes; foldedKeys maps
// their lowercase forms back.
var (
	keyNames = []string{"schemaVersion", "timestamp", "sessionId", "tool", "name", "target",
		"selector", "testId", "a11yRef", "outcome", "ok", "error", "code", "message", "observation",
		"state", "currentScreen", "currentUrl", "testIds", "a11y", "nodes", "ref", "role", "artifacts",
		"labels", "screenshot", "path"}
	exactKeys  = map[string]bool{}
	foldedKeys = map[string]string{}
)

func init() {
	for _, k := range keyNames {
		exactKeys[k] = true
		foldedKeys[strings.ToLower(k)] = k
	}
}

// plainKey refuses keys encoding/json would match case-insensitively to a
// field under another spelling ("Timestamp", or any non-ASCII key).
func plainKey(k []byte) bool {
	if exactKeys[string(k)] {
		return true
	}
	for _, c := range k {
		if c >= 0x80 {
			return false // Unicode folding: leave it to encoding/json
		}
	}
	var buf [32]byte
	if len(k) > len(buf) {
		return true // longer than any field name
	}
	for i, c := range k {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	_, known := foldedKeys[string(buf[:len(k)])]
	return !known
}

// array walks an array, calling item with the scanner at each element.
func (p *jparser) array(item func() bool) bool {
	if p.peek() != '[' {
		return false
	}
	p.i++
	if p.peek() == ']' {
		p.i++
		return true
	}
	for {
		if !item() {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// skip validates and skips any value.
func (p *jparser) skip() bool {
	switch c := p.peek(); {
	case c == '{':
		return p.object(func(string) bool { return p.skip() })
	case c == '[':
		return p.array(p.skip)
	case c == '"':
		_, _, ok := p.rawString()
		return ok
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return false
}

// captureRaw skips the artifacts value and keeps its bytes for
// encoding/json (object refuses duplicate keys, so it is seen once).
func (p *jparser) captureRaw() bool {
	p.ws()
	start := p.i
	if !p.skip() {
		return false
	}
	p.art = p.b[start:p.i]
	return true
}
