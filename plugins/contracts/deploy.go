package contracts

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/mmcp-dev/mmcp/sdk"
)

// reachTimeout bounds the first eth_chainId of a deploy call.
const reachTimeout = 3 * time.Second

// legacyGasPrice is what MetaMask's seeder sends on muirGlacier, marking
// the transactions as legacy ones.
var legacyGasPrice = big.NewInt(20000)

// Deploy implements sdk.ContractSeeder.
func (p *Plugin) Deploy(ctx context.Context, req sdk.DeployRequest) (sdk.DeployResponse, error) {
	d, err := p.deploy(ctx, req.RPCURL, req.Name, req.Options)
	return sdk.DeployResponse{Deployment: d}, err
}

func (p *Plugin) deploy(ctx context.Context, rpcURL, name string, opts sdk.DeployOptions) (sdk.Deployment, error) {
	if _, err := p.resolve(name); err != nil {
		return sdk.Deployment{}, err
	}
	s, done, err := p.openSession(ctx, rpcURL, opts)
	if err != nil {
		return sdk.Deployment{}, err
	}
	defer done()
	return p.deployIn(ctx, s, name)
}

// DeployMany implements sdk.ContractSeeder: it deploys in order, going on
// past failures. A chain that does not answer fails the whole call.
func (p *Plugin) DeployMany(ctx context.Context, req sdk.DeployManyRequest) (sdk.DeployManyResponse, error) {
	return p.deployMany(ctx, req.RPCURL, req.Names, req.Options, sdk.NopEvents{})
}

// deployMany is DeployMany reporting progress to ev.
func (p *Plugin) deployMany(ctx context.Context, rpcURL string, names []string, opts sdk.DeployOptions, ev sdk.Events) (sdk.DeployManyResponse, error) {
	res := sdk.DeployManyResponse{Deployed: []sdk.Deployment{}, Failed: []sdk.DeployFailure{}}
	s, done, err := p.openSession(ctx, rpcURL, opts)
	if err != nil {
		return res, err
	}
	defer done()
	for i, n := range names {
		if i > 0 {
			ev.Progress(float64(i), float64(len(names)), "deploying "+n)
		}
		if ctx.Err() != nil {
			return res, sdk.Errorf(sdk.CodeCancelled, "deploy cancelled: %w", ctx.Err())
		}
		d, err := p.deployIn(ctx, s, n)
		if err != nil {
			res.Failed = append(res.Failed, sdk.DeployFailure{ContractName: n, Error: sdk.AsError(err).Message})
			continue
		}
		res.Deployed = append(res.Deployed, d)
	}
	ev.Progress(float64(len(names)), float64(len(names)), "done")
	return res, nil
}

// deployable is a resolved contract name.
type deployable struct {
	builtin *builtin
	custom  *customArtifact
}

// resolve finds a built-in or artifact by name; an unknown name is
// MM_INVALID_INPUT with details.available.
func (p *Plugin) resolve(name string) (deployable, error) {
	if b, ok := builtinByName(name); ok {
		return deployable{builtin: &b}, nil
	}
	customs := p.customArtifacts()
	if c, ok := customs[name]; ok {
		if c.argCount > 0 {
			return deployable{}, sdk.Errorf(sdk.CodeInvalidInput, "artifact %s (%s) has a constructor with %d arguments; only contracts without constructor arguments can be deployed by name", name, c.path, c.argCount)
		}
		return deployable{custom: &c}, nil
	}
	available := builtinNames()
	for n := range customs {
		available = append(available, n)
	}
	msg := fmt.Sprintf("unknown contract %q", name)
	if near, ok := isBuiltinName(name); ok {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return deployable{}, sdk.Errorf(sdk.CodeInvalidInput, "%s; see details.available", msg).
		WithDetails(map[string]any{"available": sortedUnique(available), "field": "contractName"})
}

// deployIn deploys name within a session and records it.
func (p *Plugin) deployIn(ctx context.Context, s *session, name string) (sdk.Deployment, error) {
	d, err := p.resolve(name)
	if err != nil {
		return sdk.Deployment{}, err
	}
	var (
		art  *artifact
		args []any
	)
	if d.builtin != nil {
		art, err = d.builtin.load(p.catalog, p.nodeModulesDirs())
		if err == nil && d.builtin.args != nil {
			args, err = d.builtin.args(ctx, s)
		}
	} else {
		art, err = newArtifact(d.custom.code, d.custom.abi, d.custom.path)
		if err != nil {
			err = sdk.Errorf(sdk.CodeContractDeployFailed, "%w", err)
		}
	}
	if err != nil {
		return sdk.Deployment{}, err
	}
	data, err := art.creationData(args)
	if err != nil {
		return sdk.Deployment{}, sdk.Errorf(sdk.CodeContractDeployFailed, "deploying %s: %w", name, err)
	}
	r, err := s.create(ctx, "deploying "+name, data)
	if err != nil {
		return sdk.Deployment{}, err
	}
	if d.builtin != nil && d.builtin.after != nil {
		if err := d.builtin.after(ctx, s, &deployed{address: r.ContractAddress, art: art, receipt: r}); err != nil {
			e := sdk.AsError(err)
			return sdk.Deployment{}, sdk.Errorf(sdk.CodeContractDeployFailed, "%s deployed at %s, but its setup failed: %s", name, r.ContractAddress.Hex(), e.Message)
		}
	}
	dep := sdk.Deployment{
		ContractName:    name,
		ContractAddress: r.ContractAddress.Hex(),
		DeployedAt:      time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		TxHash:          r.TxHash.Hex(),
		BlockNumber:     r.BlockNumber.Uint64(),
		Deployer:        s.snd.From().Hex(),
		ABI:             art.ABIJSON,
	}
	p.registry.add(s.key, dep)
	p.log.Info("deployed contract", "name", name, "address", dep.ContractAddress, "block", dep.BlockNumber)
	return dep, nil
}

// entryPointFor returns the EntryPoint this session deployed on the chain
// (if its code is still there) or deploys one.
func (p *Plugin) entryPointFor(s *session) func(ctx context.Context) (common.Address, error) {
	return func(ctx context.Context) (common.Address, error) {
		if d, ok := p.registry.latest(s.key, EntryPoint); ok {
			addr := common.HexToAddress(d.ContractAddress)
			if code, err := s.b.CodeAt(ctx, addr, nil); err == nil && len(code) > 0 {
				return addr, nil
			}
		}
		d, err := p.deployIn(ctx, s, EntryPoint)
		if err != nil {
			return common.Address{}, err
		}
		return common.HexToAddress(d.ContractAddress), nil
	}
}

// client returns the (cached) RPC client of url.
func (p *Plugin) client(ctx context.Context, url string) (*rpc.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[url]; ok {
		return c, nil
	}
	c, err := rpc.DialContext(ctx, url)
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "invalid rpcUrl %q: %w", url, err).WithDetails(map[string]any{"field": "rpcUrl"})
	}
	p.clients[url] = c
	return c, nil
}

// openSession connects to rpcURL and sets up the deployer chosen by opts.
// done undoes an impersonation.
func (p *Plugin) openSession(ctx context.Context, rpcURL string, opts sdk.DeployOptions) (*session, func(), error) {
	if rpcURL == "" {
		rpcURL = sdk.DefaultRPCURL
	}
	do := opts.DeployerOptions
	if do.FromAddress != "" && do.FromPrivateKey != "" {
		return nil, nil, sdk.Errorf(sdk.CodeInvalidInput, "give deployerOptions.fromAddress or fromPrivateKey, not both")
	}
	c, err := p.client(ctx, rpcURL)
	if err != nil {
		return nil, nil, err
	}
	eth := ethclient.NewClient(c)
	rctx, cancel := context.WithTimeout(ctx, reachTimeout)
	chainID, err := eth.ChainID(rctx)
	cancel()
	if err != nil {
		return nil, nil, sdk.Errorf(sdk.CodeChainNotRunning, "no chain answers at %s; start it first (mm_launch or chain_start): %w", rpcURL, err).
			WithDetails(map[string]any{"rpcUrl": rpcURL})
	}
	s := &session{
		key:        rpcURL,
		b:          eth,
		nudgeAfter: 1,
		nudge:      func(ctx context.Context) error { return c.CallContext(ctx, nil, "evm_mine") },
	}
	s.entryPoint = p.entryPointFor(s)
	var gasPrice *big.Int
	if strings.EqualFold(opts.Hardfork, "muirGlacier") {
		gasPrice = legacyGasPrice
	}
	var accounts []common.Address
	if err := c.CallContext(ctx, &accounts, "eth_accounts"); err == nil && len(accounts) > 0 {
		s.account0 = accounts[0]
	}
	done := func() {}
	switch {
	case do.FromPrivateKey != "":
		key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(do.FromPrivateKey), "0x"))
		if err != nil {
			return nil, nil, sdk.Errorf(sdk.CodeInvalidInput, "deployerOptions.fromPrivateKey is not a valid secp256k1 private key (64 hex digits)")
		}
		from := crypto.PubkeyToAddress(key.PublicKey)
		if err := fund(ctx, c, eth, from); err != nil {
			return nil, nil, err
		}
		s.snd = &keySender{b: eth, key: key, from: from, chainID: chainID, gasPrice: gasPrice}
	case do.FromAddress != "":
		if !common.IsHexAddress(do.FromAddress) {
			return nil, nil, sdk.Errorf(sdk.CodeInvalidInput, "deployerOptions.fromAddress %q is not an address", do.FromAddress)
		}
		from := common.HexToAddress(do.FromAddress)
		if err := c.CallContext(ctx, nil, "anvil_impersonateAccount", from); err != nil {
			return nil, nil, sdk.Errorf(sdk.CodeContractDeployFailed, "cannot impersonate %s (the node must be Anvil): %w", from.Hex(), err)
		}
		done = func() { _ = c.CallContext(context.Background(), nil, "anvil_stopImpersonatingAccount", from) }
		if err := fund(ctx, c, eth, from); err != nil {
			done()
			return nil, nil, err
		}
		s.snd = &nodeSender{rpc: c, from: from, gasPrice: gasPrice}
	default:
		if len(accounts) == 0 {
			return nil, nil, sdk.Errorf(sdk.CodeContractDeployFailed, "the node at %s has no unlocked account; pass deployerOptions.fromPrivateKey", rpcURL)
		}
		s.snd = &nodeSender{rpc: c, from: accounts[0], gasPrice: gasPrice}
	}
	if s.account0 == (common.Address{}) {
		s.account0 = s.snd.From()
	}
	return s, done, nil
}

// fund gives addr one ether with anvil_setBalance when it has less.
func fund(ctx context.Context, c *rpc.Client, eth *ethclient.Client, addr common.Address) error {
	bal, err := eth.BalanceAt(ctx, addr, nil)
	if err != nil {
		return fmt.Errorf("balance of %s: %w", addr.Hex(), err)
	}
	if bal.Cmp(oneEther) >= 0 {
		return nil
	}
	if err := c.CallContext(ctx, nil, "anvil_setBalance", addr, (*hexutil.Big)(oneEther)); err != nil {
		return sdk.Errorf(sdk.CodeContractDeployFailed, "cannot fund deployer %s (anvil_setBalance): %w", addr.Hex(), err)
	}
	return nil
}
