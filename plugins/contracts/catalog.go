package contracts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Names of the built-in contracts (mm_seed_contract's contractName).
const (
	HST                  = "hst"
	NFTs                 = "nfts"
	ERC1155              = "erc1155"
	PiggyBank            = "piggybank"
	Failing              = "failing"
	Multisig             = "multisig"
	EntryPoint           = "entrypoint"
	SimpleAccountFactory = "simpleAccountFactory"
	VerifyingPaymaster   = "verifyingPaymaster"
)

const (
	testDappPkg = "@metamask/test-dapp"
	testDappRel = "dist/constants.json"
	aaPkg       = "@account-abstraction/contracts"
)

// aaArtifacts are the ERC-4337 artifact names the trio needs.
var aaArtifacts = []string{"artifacts/EntryPoint.json", "artifacts/SimpleAccountFactory.json", "artifacts/VerifyingPaymaster.json"}

// builtin is one of MetaMask's seedable contracts.
type builtin struct {
	name string
	// load returns the artifact from the installed npm packages.
	load func(c *catalog, dirs []string) (*artifact, error)
	// args returns the constructor arguments.
	args func(ctx context.Context, s *session) ([]any, error)
	// after runs MetaMask's post-deploy steps.
	after func(ctx context.Context, s *session, d *deployed) error
}

// builtins are the built-in contracts.
var builtins = []builtin{
	{name: HST, load: testDapp("hst"), args: hstArgs},
	{name: NFTs, load: testDapp("nfts"), after: mintOneNFT},
	{name: ERC1155, load: testDapp("erc1155"), after: mintERC1155Batch},
	{name: PiggyBank, load: testDapp("piggybank")},
	{name: Failing, load: testDapp("failingContract")},
	{name: Multisig, load: testDapp("multisig")},
	{name: EntryPoint, load: accountAbstraction("EntryPoint")},
	{name: SimpleAccountFactory, load: accountAbstraction("SimpleAccountFactory"), args: factoryArgs},
	{name: VerifyingPaymaster, load: accountAbstraction("VerifyingPaymaster"), args: paymasterArgs},
}

// builtinByName finds a built-in contract.
func builtinByName(name string) (builtin, bool) {
	for _, b := range builtins {
		if b.name == name {
			return b, true
		}
	}
	return builtin{}, false
}

// builtinNames lists the built-in names.
func builtinNames() []string {
	n := make([]string, len(builtins))
	for i, b := range builtins {
		n[i] = b.name
	}
	return n
}

// catalog caches parsed artifacts by file (and key).
type catalog struct {
	mu        sync.Mutex
	constants map[string]map[string]json.RawMessage // constants.json path -> keys
	artifacts map[string]*artifact                  // path#key -> artifact
}

func newCatalog() *catalog {
	return &catalog{constants: map[string]map[string]json.RawMessage{}, artifacts: map[string]*artifact{}}
}

// testDapp loads <key>Bytecode / <key>Abi from @metamask/test-dapp's
// dist/constants.json.
func testDapp(key string) func(c *catalog, dirs []string) (*artifact, error) {
	return func(c *catalog, dirs []string) (*artifact, error) {
		base, tried := findPackageFile(dirs, testDappPkg, testDappRel)
		if base == "" {
			return nil, sdk.Errorf(sdk.CodeDependenciesMissing, "%s is not installed; run `npm i %s` in the workspace (or `npm ci --prefix .tools` in mmcp)", testDappPkg, testDappPkg).
				WithDetails(map[string]any{"tried": tried})
		}
		path := filepath.Join(base, testDappRel)
		c.mu.Lock()
		defer c.mu.Unlock()
		if a, ok := c.artifacts[path+"#"+key]; ok {
			return a, nil
		}
		consts, ok := c.constants[path]
		if !ok {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", path, err)
			}
			if err := json.Unmarshal(b, &consts); err != nil {
				return nil, fmt.Errorf("parse %s: %w", path, err)
			}
			c.constants[path] = consts
		}
		var code string
		if err := json.Unmarshal(consts[key+"Bytecode"], &code); err != nil || code == "" {
			return nil, sdk.Errorf(sdk.CodeDependenciesMissing, "%s has no %sBytecode; this version of %s (%s) is not supported", path, key, testDappPkg, packageVersion(base))
		}
		a, err := newArtifact(code, consts[key+"Abi"], path+"#"+key)
		if err != nil {
			return nil, err
		}
		c.artifacts[path+"#"+key] = a
		return a, nil
	}
}

// accountAbstraction loads artifacts/<name>.json (Hardhat format) from the
// first @account-abstraction/contracts installation that has all three
// ERC-4337 artifacts, so that the trio always comes from one version.
func accountAbstraction(name string) func(c *catalog, dirs []string) (*artifact, error) {
	return func(c *catalog, dirs []string) (*artifact, error) {
		base, tried := findPackageFile(dirs, aaPkg, aaArtifacts...)
		if base == "" {
			base, _ = findPackageFile(dirs, aaPkg, "package.json")
		}
		if base == "" {
			return nil, sdk.Errorf(sdk.CodeDependenciesMissing, "%s is not installed; run `npm i %s@0.6.0` in the workspace", aaPkg, aaPkg).
				WithDetails(map[string]any{"tried": tried})
		}
		path := filepath.Join(base, "artifacts", name+".json")
		c.mu.Lock()
		defer c.mu.Unlock()
		if a, ok := c.artifacts[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			v := packageVersion(base)
			return nil, sdk.Errorf(sdk.CodeDependenciesMissing, "%s@%s at %s has no %s artifact (0.8 dropped the samples); install %s@0.6.0, the version MetaMask's ERC-4337 tests use", aaPkg, v, base, name, aaPkg).
				WithDetails(map[string]any{"path": path, "version": v})
		}
		var h struct {
			ABI      json.RawMessage `json:"abi"`
			Bytecode string          `json:"bytecode"`
		}
		if err := json.Unmarshal(b, &h); err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		a, err := newArtifact(h.Bytecode, h.ABI, path)
		if err != nil {
			return nil, err
		}
		c.artifacts[path] = a
		return a, nil
	}
}

// sortedUnique sorts names and drops duplicates.
func sortedUnique(names []string) []string {
	sort.Strings(names)
	out := names[:0]
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			out = append(out, n)
		}
	}
	return out
}

// isBuiltinName reports (case-insensitively) whether name is a built-in, to
// give a hint on a near miss.
func isBuiltinName(name string) (string, bool) {
	for _, b := range builtins {
		if strings.EqualFold(b.name, name) {
			return b.name, true
		}
	}
	return "", false
}
