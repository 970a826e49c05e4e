package redact

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinPhraseWords is the shortest run of BIP-39 words Mask treats as a
// recovery phrase (the shortest SRP has 12 words).
const MinPhraseWords = 12

// MinNumberedWords is the shortest run of numbered BIP-39 words ("1. spread
// 2. raise ...", a reveal screen) Mask treats as a phrase: such a list is
// often cut short (a testid's text is cut at 100 characters).
const MinNumberedWords = 6

// bip39English is the BIP-39 English word list (2048 words, sha256
// 2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda).
//
//go:embed bip39_english.txt
var bip39English string

var bip39 = func() map[string]bool {
	m := make(map[string]bool, 2048)
	for _, w := range strings.Fields(bip39English) {
		m[w] = true
	}
	return m
}()

// hexKey matches a 32-byte hex string: a private key, bare or 0x-prefixed
// (and, unavoidably, a transaction or block hash).
var hexKey = regexp.MustCompile(`(?i)\b(0x)?[0-9a-f]{64}\b`)

// Mask returns s with every secret it can recognise by its shape replaced
// by a placeholder: runs of MinPhraseWords or more BIP-39 words (numbering
// such as "1." or "12" between the words does not break a run), runs of
// MinNumberedWords or more numbered ones (a reveal-phrase screen), and
// 32-byte hex keys. Text without one is returned unchanged.
func Mask(s string) string {
	if len(s) < 32 && !strings.ContainsAny(s, " \t\n") {
		return s // fast path: too short for either shape
	}
	s = hexKey.ReplaceAllStringFunc(s, func(k string) string { return Placeholder(k) })
	return maskPhrases(s)
}

// token is one word of s, as byte offsets; numbered when a number came
// right before it.
type token struct {
	start, end int
	numbered   bool
}

// maskPhrases masks runs of BIP-39 words.
func maskPhrases(s string) string {
	var run []token // the BIP-39 words of the current run
	var cuts []token
	number := false // the last token was a number
	end := func() {
		if len(run) >= MinPhraseWords {
			cuts = append(cuts, token{start: run[0].start, end: run[len(run)-1].end})
			run = run[:0]
			return
		}
		// Stretches of numbered words ("text": "1. spread 2. raise ...").
		for i := 0; i < len(run); {
			j := i
			for j < len(run) && run[j].numbered {
				j++
			}
			if j-i >= MinNumberedWords {
				cuts = append(cuts, token{start: run[i].start, end: run[j-1].end})
			}
			i = max(j, i+1)
		}
		run = run[:0]
	}
	i := 0
	for i < len(s) {
		if !isWordByte(s[i]) {
			// Separators between words: spaces, punctuation and JSON
			// quoting ("spread","raise"), but a letter-less line of prose
			// does not join two runs.
			if s[i] >= 0x80 {
				// One rune decoded in place: converting the rest of s
				// to runes here made the scan quadratic.
				r, size := utf8.DecodeRuneInString(s[i:])
				if unicode.IsLetter(r) {
					end()
				}
				i += size
				continue
			}
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		w := s[i:j]
		switch {
		case bip39[strings.ToLower(w)]:
			run = append(run, token{start: i, end: j, numbered: number})
			number = false
		case isNumber(w):
			// "1." numbering between the words of a reveal screen.
			number = true
		default:
			number = false
			end()
		}
		i = j
	}
	end()
	if len(cuts) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, c := range cuts {
		b.WriteString(s[last:c.start])
		fmt.Fprintf(&b, "%s %d words]", placeholderPrefix, countWords(s[c.start:c.end]))
		last = c.end
	}
	b.WriteString(s[last:])
	return b.String()
}

func countWords(s string) int {
	n := 0
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !isWordByte(byte(r)) || r >= 0x80 }) {
		if bip39[strings.ToLower(f)] {
			n++
		}
	}
	return n
}

// isWordByte reports an ASCII letter or digit (BIP-39 English words are
// lower-case ASCII).
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
}

// LooksSecret reports whether Mask would change s.
func LooksSecret(s string) bool { return Mask(s) != s }
