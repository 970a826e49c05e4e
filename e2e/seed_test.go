package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/internal/testutil"
)

type contractView struct {
	ContractName    string
	ContractAddress string
	DeployedAt      string
}

// hasCode fails the test unless addr holds code on the chain at url.
func hasCode(t *testing.T, url, addr string) {
	t.Helper()
	var code string
	ethRPC(t, url, "eth_getCode", &code, addr, "latest")
	if len(code) <= 2 {
		t.Fatalf("no code at %s (%q)", addr, code)
	}
}

// TestSeedContracts seeds at launch and through the seeding tools, against
// real Anvil.
func TestSeedContracts(t *testing.T) {
	h, ws := walletHost(t)
	wantCode(t, h.Call("mm_seed_contract", map[string]any{"contractName": "hst"}), "MM_NO_ACTIVE_SESSION")
	wantCode(t, h.Call("mm_list_contracts", map[string]any{}), "MM_NO_ACTIVE_SESSION")

	anvil := testutil.FreePort(t)
	res := launchFree(t, h, map[string]any{"seedContracts": []string{"hst", "nfts"}, "ports": map[string]any{"anvil": anvil}})
	if got := strings.Join(steps(res), ","); got != "mocks,chain,contracts,fixture,browser,unlock" {
		t.Fatalf("prerequisites %s", got)
	}
	url := chainURL(t, h)

	var list struct{ Contracts []contractView }
	must(t, h.Call("mm_list_contracts", map[string]any{})).Decode(t, &list)
	if len(list.Contracts) != 2 || list.Contracts[0].ContractName != "hst" || list.Contracts[1].ContractName != "nfts" {
		t.Fatalf("contracts %+v", list.Contracts)
	}
	for _, c := range list.Contracts {
		if c.DeployedAt == "" {
			t.Errorf("%s has no deployedAt", c.ContractName)
		}
		hasCode(t, url, c.ContractAddress)
	}

	var many struct {
		Deployed []contractView
		Failed   []struct{ ContractName, Error string }
	}
	must(t, h.Call("mm_seed_contracts", map[string]any{"contracts": []string{"piggybank", "noSuchContract", "failing"}})).Decode(t, &many)
	if len(many.Deployed) != 2 || many.Deployed[0].ContractName != "piggybank" || many.Deployed[1].ContractName != "failing" {
		t.Fatalf("deployed %+v", many.Deployed)
	}
	if len(many.Failed) != 1 || many.Failed[0].ContractName != "noSuchContract" || many.Failed[0].Error == "" {
		t.Fatalf("failed %+v", many.Failed)
	}
	for _, c := range many.Deployed {
		hasCode(t, url, c.ContractAddress)
	}

	var addr struct {
		ContractName    string
		ContractAddress *string
	}
	must(t, h.Call("mm_get_contract_address", map[string]any{"contractName": "noSuchContract"})).Decode(t, &addr)
	if addr.ContractAddress != nil {
		t.Fatalf("unknown contract has address %s", *addr.ContractAddress)
	}
	must(t, h.Call("mm_get_contract_address", map[string]any{"contractName": "piggybank"})).Decode(t, &addr)
	if addr.ContractAddress == nil || !strings.EqualFold(*addr.ContractAddress, many.Deployed[0].ContractAddress) {
		t.Fatalf("piggybank address %v", addr.ContractAddress)
	}

	env := h.Call("mm_seed_contract", map[string]any{"contractName": "noSuchContract"})
	wantCode(t, env, "MM_INVALID_INPUT")
	if !strings.Contains(jsonOf(env.Error.Details["available"]), "hst") {
		t.Fatalf("unknown contract error lists %v", env.Error.Details)
	}

	// A deploy from a private key: the key never reaches a record.
	const key = "0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
	var one contractView
	must(t, h.Call("mm_seed_contract", map[string]any{"contractName": "hst", "deployerOptions": map[string]any{"fromPrivateKey": key}})).Decode(t, &one)
	hasCode(t, url, one.ContractAddress)
	must(t, h.Call("mm_list_contracts", map[string]any{})).Decode(t, &list)
	if len(list.Contracts) != 5 {
		t.Fatalf("after re-deploying hst: %+v", list.Contracts)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
	h.Close()
	bare := strings.TrimPrefix(key, "0x")
	redactedSeen := false
	_ = filepath.WalkDir(filepath.Join(ws, "test-artifacts"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), bare) {
			t.Errorf("private key stored in %s", p)
		}
		if strings.Contains(strings.Join(strings.Fields(string(b)), ""), `"fromPrivateKey":"[redacted66chars]"`) {
			redactedSeen = true
		}
		return nil
	})
	if !redactedSeen {
		t.Error("no record of the private-key deploy with the key redacted")
	}
	if strings.Contains(h.Stderr.String(), bare) {
		t.Error("private key in the log")
	}
}

// TestSeedPresetNeedsContract: a preset that references a contract
// seedContracts does not list gets it deployed, and the wallet state holds
// its address.
func TestSeedPresetNeedsContract(t *testing.T) {
	h, _ := walletHost(t)
	res := launchFree(t, h, map[string]any{"fixturePreset": "withHSTToken", "ports": map[string]any{"anvil": testutil.FreePort(t)}})
	if st := launchState(t, res); st.CurrentScreen != "home" || !st.IsUnlocked {
		t.Fatalf("launch state %+v", st)
	}
	if got := strings.Join(steps(res), ","); got != "mocks,chain,contracts,fixture,browser,unlock" {
		t.Fatalf("prerequisites %s", got)
	}
	var addr struct{ ContractAddress *string }
	must(t, h.Call("mm_get_contract_address", map[string]any{"contractName": "hst"})).Decode(t, &addr)
	if addr.ContractAddress == nil {
		t.Fatal("hst not deployed for the preset")
	}
	hasCode(t, chainURL(t, h), *addr.ContractAddress)
}

// TestSeedNoChain: without the chain plugin the seeding tools answer
// MM_CHAIN_NOT_RUNNING.
func TestSeedNoChain(t *testing.T) {
	ws := walletWorkspace(t)
	dir := hostDir(t, map[string]string{
		"fixture":   filepath.Join(bin, "mmcp-plugin-fixture"),
		"contracts": filepath.Join(bin, "mmcp-plugin-contracts"),
	})
	h := startHost(t, HostOptions{Repo: ws, Bin: dir, Args: []string{"--headless"}})
	t.Cleanup(func() {
		if h.Cmd.ProcessState == nil {
			h.Call("mm_cleanup", map[string]any{})
		}
	})
	launchFree(t, h, map[string]any{"stateMode": "onboarding"})
	wantCode(t, h.Call("mm_seed_contract", map[string]any{"contractName": "hst"}), "MM_CHAIN_NOT_RUNNING")
	wantCode(t, h.Call("mm_seed_contracts", map[string]any{"contracts": []string{"hst"}}), "MM_CHAIN_NOT_RUNNING")
	var list struct{ Contracts []contractView }
	must(t, h.Call("mm_list_contracts", map[string]any{})).Decode(t, &list)
	if len(list.Contracts) != 0 {
		t.Fatalf("contracts %+v", list.Contracts)
	}
}
