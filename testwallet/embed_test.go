package testwallet_test

import (
	"testing"

	"github.com/mmcp-dev/mmcp/testwallet"
)

func BenchmarkWriteTo(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		if err := testwallet.WriteTo(dir); err != nil {
			b.Fatal(err)
		}
	}
}
