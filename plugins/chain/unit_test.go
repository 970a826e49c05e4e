package chain

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/plugins/chain/anvilpath"
	"github.com/mmcp-dev/mmcp/sdk"
)

func TestStartWithoutAnvilIsDependenciesMissing(t *testing.T) {
	t.Parallel()
	p := New(nil)
	p.env = anvilpath.Env{
		Getenv:     func(string) string { return "" },
		Executable: func() (string, error) { return "/nonexistent/bin/x", nil },
		LookPath:   func(string) (string, error) { return "", errors.New("no") },
	}
	if err := p.Configure(context.Background(), sdk.Config{Workspace: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	_, err := p.start(context.Background(), sdk.ChainOptions{Port: testutil.FreePort(t)})
	testutil.WantCode(t, err, sdk.CodeDependenciesMissing)
}

// parseSettings decodes and checks settings as Configure does.
func parseSettings(raw json.RawMessage) (Settings, error) {
	var c sdk.Configured[Settings]
	err := c.Set("chain", sdk.Config{Settings: raw}, (*Settings).check)
	_, s := c.Get()
	return s, err
}

func TestSettingsAndOptions(t *testing.T) {
	t.Parallel()
	_, err := parseSettings([]byte(`{"port":9000,"block_time":2}`))
	testutil.WantCode(t, err, sdk.CodeInvalidConfig)

	s, err := parseSettings([]byte(`{"port":9000,"blockTime":2,"hardfork":"cancun"}`))
	if err != nil {
		t.Fatal(err)
	}
	o, err := resolve(s, sdk.ChainOptions{Port: 9100})
	if err != nil {
		t.Fatal(err)
	}
	if o.Port != 9100 || o.BlockTime != 2 || o.Hardfork != "cancun" || o.ChainID != 1337 || o.Balance != 25 || o.Mnemonic != DefaultMnemonic {
		t.Fatalf("resolved = %+v", o)
	}
	args := anvilArgs(o)
	for _, want := range [][]string{{"--block-time", "2"}, {"--port", "9100"}, {"--chain-id", "1337"}, {"--gas-limit", "30000000"}, {"--gas-price", "2000000000"}, {"--host", "127.0.0.1"}} {
		i := slices.Index(args, want[0])
		if i < 0 || args[i+1] != want[1] {
			t.Fatalf("args %v lack %v", args, want)
		}
	}
	s, err = parseSettings([]byte(`{"freePort":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := resolve(s, sdk.ChainOptions{}); !o.FreePort {
		t.Fatal("the freePort setting is not honoured")
	}
	d, _ := resolve(Settings{}, sdk.ChainOptions{})
	if slices.Contains(anvilArgs(d), "--block-time") {
		t.Fatal("default should automine (no --block-time)")
	}
}

func TestRedactHidesKeysAndMnemonic(t *testing.T) {
	t.Parallel()
	key := "(0) 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	if got := redact(key, nil); strings.Contains(got, "ac0974") {
		t.Fatalf("key kept: %s", got)
	}
	if got := redact("Mnemonic:          a b c", nil); strings.Contains(got, "a b c") {
		t.Fatalf("mnemonic kept: %s", got)
	}
	if got := redact("using words spread raise here", []string{"spread raise"}); strings.Contains(got, "spread") {
		t.Fatalf("secret kept: %s", got)
	}
	tx := "    Transaction: 0x3d5b8c0f7e5dc3a0e9a3a2c1b3f7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5"
	if got := redact(tx, nil); got != tx {
		t.Fatalf("tx hash line changed: %s", got)
	}
}
