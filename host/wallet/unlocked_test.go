package wallet

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/host/browser"
	"github.com/mmcp-dev/mmcp/internal/testutil"
)

const testPassword = "test-password"

// launchTest starts a wallet on host/browser's test extension and closes
// it when the test ends.
func launchTest(t testing.TB) *Wallet {
	t.Helper()
	ext, err := filepath.Abs("../browser/testdata/ext")
	if err != nil {
		t.Fatal(err)
	}
	o := browser.Options{ExtensionPath: ext, ArtifactsDir: t.TempDir(),
		// MMCP_TEST_HEADED=1 (with $DISPLAY, e.g. Xvfb) runs the tests headed.
		Headless: os.Getenv("MMCP_TEST_HEADED") != "1"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Launch(ctx, Options{Options: o})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	testutil.CloseAtEnd(t, s)
	return s
}

// unlockedTest is launchTest's wallet, unlocked, with the test's context.
func unlockedTest(t *testing.T) (*Wallet, context.Context) {
	t.Helper()
	s := launchTest(t)
	ctx := tctx(t)
	if err := s.Unlock(ctx, testPassword); err != nil {
		t.Fatal(err)
	}
	return s, ctx
}

func tctx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
