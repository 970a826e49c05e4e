package tools

// rpcHead scans a JSON-RPC message as it streams by, without keeping it,
// and remembers the top-level "id" and "method" and params.name (the tool
// of a tools/call), wherever they stand in the object.
type rpcHead struct {
	depth    int
	inString bool
	escape   bool
	// expectKey[d] is true when the next string at depth d (1 or 2) is a
	// key; only depths 1 and 2 are tracked.
	expectKey [3]bool
	keys      [3][]byte // the last key seen at depths 1 and 2
	cur       *[]byte   // what the current token is captured into
	curKey    bool      // the current string is a key
	keyBuf    []byte

	id, methodB, name []byte
}

// maxCapture bounds every captured key or value.
const maxCapture = 256

func (h *rpcHead) write(p []byte) {
	for _, c := range p {
		h.byte(c)
	}
}

func (h *rpcHead) byte(c byte) {
	if h.inString {
		h.capture(c)
		switch {
		case h.escape:
			h.escape = false
		case c == '\\':
			h.escape = true
		case c == '"':
			h.inString = false
			if h.curKey {
				if h.depth <= 2 {
					h.keys[h.depth] = append(h.keys[h.depth][:0], h.keyBuf...)
				}
				h.curKey = false
			}
			h.endValue()
		}
		return
	}
	switch c {
	case ' ', '\t', '\r', '\n':
		return
	case '"':
		h.inString = true
		if h.depth >= 1 && h.depth <= 2 && h.expectKey[h.depth] {
			h.curKey = true
			h.keyBuf = h.keyBuf[:0]
			h.cur = &h.keyBuf
			return // the quote is not part of the key
		}
		h.startValue()
		h.capture(c)
		return
	case ':':
		if h.depth <= 2 {
			h.expectKey[h.depth] = false
		}
		return
	case ',':
		h.endValue()
		if h.depth <= 2 {
			h.expectKey[h.depth] = true
		}
		return
	case '{', '[':
		h.endValue()
		h.depth++
		if h.depth <= 2 {
			h.expectKey[h.depth] = c == '{'
			h.keys[h.depth] = h.keys[h.depth][:0]
		}
		return
	case '}', ']':
		h.endValue()
		if h.depth > 0 {
			h.depth--
		}
		return
	}
	// A scalar (number, true, false, null).
	if h.cur == nil {
		h.startValue()
	}
	h.capture(c)
}

// startValue starts capturing a value when its key is one we keep.
func (h *rpcHead) startValue() {
	h.cur = nil
	switch {
	case h.depth == 1 && string(h.keys[1]) == "id" && h.id == nil:
		h.id = []byte{}
		h.cur = &h.id
	case h.depth == 1 && string(h.keys[1]) == "method" && h.methodB == nil:
		h.methodB = []byte{}
		h.cur = &h.methodB
	case h.depth == 2 && string(h.keys[1]) == "params" && string(h.keys[2]) == "name" && h.name == nil:
		h.name = []byte{}
		h.cur = &h.name
	}
}

func (h *rpcHead) endValue() {
	if !h.curKey {
		h.cur = nil
	}
}

func (h *rpcHead) capture(c byte) {
	if h.cur == nil {
		return
	}
	if h.curKey && c == '"' && !h.escape {
		return
	}
	if len(*h.cur) < maxCapture {
		*h.cur = append(*h.cur, c)
	}
}

// method is the message's method, unquoted.
func (h *rpcHead) method() string { return unquote(h.methodB) }

// tool is params.name, unquoted.
func (h *rpcHead) tool() string { return unquote(h.name) }

func unquote(b []byte) string {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return string(b[1 : len(b)-1])
	}
	return ""
}
