package redact

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// nonASCII is n runes of prose in Cyrillic with a few BIP-39 words and
// accented letters mixed in: no secret, every separator non-ASCII.
func nonASCII(n int) string {
	words := []string{"привет", "мир", "spread", "éte", "数据", "raise", "—", "ünd"}
	var b strings.Builder
	runes := 0
	for i := 0; runes < n; i++ {
		w := words[i%len(words)] + " "
		b.WriteString(w)
		runes += len([]rune(w))
	}
	return b.String()
}

// allocated is the bytes Mask allocates for s.
func allocated(s string) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if Mask(s) != s {
		panic("prose masked")
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Mask runs on every host log line and on mm_get_text answers of up to
// 20,000 characters: its work on non-ASCII text grows with the text, not
// with its square. 16x the text may cost at most ~16x the bytes (plus a
// constant), where the quadratic scan allocated 256x.
func TestMaskLinearOnNonASCII(t *testing.T) {
	small, big := nonASCII(1000), nonASCII(16000)
	allocated(small) // warm up lazily built tables
	a1, a16 := allocated(small), allocated(big)
	if limit := 20*a1 + 64<<10; a16 > limit {
		t.Fatalf("Mask allocated %d bytes for 1k non-ASCII runes and %d for 16k (limit %d): the scan is not linear", a1, a16, limit)
	}
	if a16 > uint64(8*len(big)) {
		t.Fatalf("Mask allocated %d bytes for a %d-byte text", a16, len(big))
	}
}

func BenchmarkMaskNonASCII(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		s := nonASCII(n)
		b.Run(strconv.Itoa(n/1000)+"k", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Mask(s)
			}
		})
	}
}
