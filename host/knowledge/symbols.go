package knowledge

import "strings"

// symtab interns every string the index searches (tool names, screens,
// testids, accessibility names and roles, labels, selectors) so a query
// matches each distinct string once and then scores steps with integer
// lookups. It only grows; strings of deleted steps stay, harmlessly.
type symtab struct {
	ids    map[string]int32
	orig   []string
	lower  []string
	idents [][]string
}

// noSym marks an absent field.
const noSym int32 = -1

func newSymtab() *symtab { return &symtab{ids: map[string]int32{}} }

func (t *symtab) intern(s string) int32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	id := int32(len(t.orig))
	t.ids[s] = id
	t.orig = append(t.orig, s)
	t.lower = append(t.lower, strings.ToLower(s))
	t.idents = append(t.idents, tokenizeIdentifier(s))
	return id
}

func (t *symtab) internOpt(s string) int32 {
	if s == "" {
		return noSym
	}
	return t.intern(s)
}

func (t *symtab) str(id int32) string {
	if id == noSym {
		return ""
	}
	return t.orig[id]
}

// queryMasks says, for every symbol, which query tokens it matches: bit i
// of sub[id] when token i is a substring of the lowercased symbol, bit i
// of ident[id] when token i is one of its identifier words.
type queryMasks struct {
	sub, ident []uint64
}

func (t *symtab) masks(tokens []string) queryMasks {
	m := queryMasks{sub: make([]uint64, len(t.orig)), ident: make([]uint64, len(t.orig))}
	for id, low := range t.lower {
		var sub, ident uint64
		for i, tok := range tokens {
			if strings.Contains(low, tok) {
				sub |= 1 << i
				for _, w := range t.idents[id] {
					if w == tok {
						ident |= 1 << i
						break
					}
				}
			}
		}
		m.sub[id], m.ident[id] = sub, ident
	}
	return m
}
