package wallet

import (
	"context"
	"testing"
)

// BenchmarkState measures one State call on the home page.
func BenchmarkState(b *testing.B) {
	s := launchTest(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.State(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
