package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/mmcp-dev/mmcp/internal/freeport"
	"github.com/mmcp-dev/mmcp/plugins/chain/anvilpath"
	"github.com/mmcp-dev/mmcp/sdk"
)

const (
	// readyTimeout bounds how long Anvil may take to answer.
	readyTimeout = 10 * time.Second
	// readyPoll is the interval of the readiness poll.
	readyPoll = 10 * time.Millisecond
	// attachTimeout bounds the first answer of an external node.
	attachTimeout = 5 * time.Second
	// freePortAttempts bounds the retries of a FreePort start whose port
	// someone else took between the pick and Anvil's bind.
	freePortAttempts = 5
)

// StartChain implements sdk.ChainLifecycle. It starts Anvil with
// MetaMask's flags, or with req.RPCURL (or the rpcUrl setting) checks that
// node answers and attaches to it. It returns once eth_blockNumber answers.
// When a chain already runs, it answers its status unchanged.
//
// req.State, when set, is loaded into the node (anvil_loadState) before
// it answers; an external node is never loaded (MM_INVALID_INPUT).
func (p *Plugin) StartChain(ctx context.Context, req sdk.StartChainRequest) (sdk.StartChainResponse, error) {
	st, err := p.start(ctx, req.ChainOptions)
	if err != nil || len(req.State) == 0 {
		return sdk.StartChainResponse{Status: st}, err
	}
	if st.External {
		return sdk.StartChainResponse{Status: st}, sdk.Errorf(sdk.CodeInvalidInput, "the chain is an external node (%s): a saved chain state is only loaded into an Anvil the chain plugin starts; unset rpcUrl", st.RPCURL).
			WithDetails(map[string]any{"field": "state"})
	}
	if err := p.loadState(ctx, req.State); err != nil {
		return sdk.StartChainResponse{Status: st}, err
	}
	res, err := p.ChainStatus(ctx, sdk.ChainStatusRequest{})
	st = res.Status // the status with the loaded state
	return sdk.StartChainResponse{Status: st}, err
}

// loadState loads state (anvil_dumpState's answer, a JSON string) into
// the running node.
func (p *Plugin) loadState(ctx context.Context, state json.RawMessage) error {
	var hex string
	if err := json.Unmarshal(state, &hex); err != nil {
		return sdk.Errorf(sdk.CodeInvalidInput, "the chain state is not anvil_dumpState's answer (a JSON string): %v", err).
			WithDetails(map[string]any{"field": "state"})
	}
	var ok bool
	if err := p.call(ctx, &ok, "anvil_loadState", hex); err != nil {
		return err
	}
	if !ok {
		return sdk.Errorf(sdk.CodeInvalidInput, "the node did not load the chain state")
	}
	return nil
}

func (p *Plugin) start(ctx context.Context, opts sdk.ChainOptions) (sdk.ChainStatus, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.node != nil && (p.node.proc == nil || !p.node.proc.exited()) {
		return p.statusOf(ctx, p.node), nil
	}
	p.node = nil
	_, settings := p.conf.Get()
	o, err := resolve(settings, opts)
	if err != nil {
		return sdk.ChainStatus{}, err
	}
	var n *node
	switch {
	case o.RPCURL != "":
		n, err = p.attach(ctx, o)
	case o.FreePort:
		n, err = p.launchOnFreePort(ctx, o)
	default:
		n, err = p.launch(ctx, o, portSource(opts, settings))
	}
	if err != nil {
		return sdk.ChainStatus{}, err
	}
	p.node = n
	return p.statusOf(ctx, n), nil
}

// attach checks that an external node answers.
func (p *Plugin) attach(ctx context.Context, o sdk.ChainOptions) (*node, error) {
	c, err := rpc.DialContext(ctx, o.RPCURL)
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "invalid rpcUrl %q: %w", o.RPCURL, err)
	}
	eth := ethclient.NewClient(c)
	actx, cancel := context.WithTimeout(ctx, attachTimeout)
	defer cancel()
	id, err := eth.ChainID(actx)
	if err != nil {
		c.Close()
		return nil, sdk.Errorf(sdk.CodeChainNotRunning, "the node at %s does not answer: %w", o.RPCURL, err)
	}
	o.ChainID = id.Int64()
	o.Port = portOf(o.RPCURL)
	p.log.Info("attached to external chain", "rpcUrl", o.RPCURL, "chainId", o.ChainID)
	return &node{opts: o, rpcURL: o.RPCURL, external: true, rpc: c, eth: eth}, nil
}

// launch starts Anvil and waits for it to answer.
//
// source says where o.Port came from, for a busy port's error (portInUse).
func (p *Plugin) launch(ctx context.Context, o sdk.ChainOptions, source string) (*node, error) {
	cfg, settings := p.conf.Get()
	bin, err := anvilpath.Find(settings.AnvilPath, cfg.Workspace, p.env)
	if err != nil {
		return nil, err
	}
	if err := checkPortFree(o.Port); err != nil {
		return nil, portInUse(o.Port, source)
	}
	proc, err := startAnvil(bin, anvilArgs(o), []string{o.Mnemonic}, p.log)
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeLaunchFailed, "cannot start anvil (%s): %w", bin, err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", o.Port)
	p.log.Info("starting anvil", "bin", bin, "port", o.Port, "chainId", o.ChainID, "blockTime", o.BlockTime, "hardfork", o.Hardfork)
	c, err := rpc.DialContext(ctx, url)
	if err != nil {
		_ = proc.stop(context.Background())
		return nil, fmt.Errorf("dial anvil: %w", err)
	}
	eth := ethclient.NewClient(c)
	if err := waitReady(ctx, eth, proc); err != nil {
		c.Close()
		_ = proc.stop(context.Background())
		return nil, err
	}
	return &node{opts: o, rpcURL: url, proc: proc, rpc: c, eth: eth}, nil
}

// launchOnFreePort starts Anvil on a free loopback port. The port is free
// when picked but may be taken before Anvil binds it (by another session's
// node, or a program that names it): then it tries another.
func (p *Plugin) launchOnFreePort(ctx context.Context, o sdk.ChainOptions) (*node, error) {
	var err error
	for range freePortAttempts {
		var ports []int
		if ports, err = freeport.Loopback(1); err != nil {
			return nil, sdk.Errorf(sdk.CodeLaunchFailed, "cannot find a free port for anvil: %w", err)
		}
		o.Port = ports[0]
		var n *node
		n, err = p.launch(ctx, o, "free")
		if e := sdk.AsError(err); e == nil || e.Code != sdk.CodePortInUse {
			return n, err
		}
		p.log.Info("anvil's free port was taken meanwhile; trying another", "port", o.Port)
	}
	return nil, err
}

// waitReady polls eth_blockNumber until it answers, the process exits
// (MM_LAUNCH_FAILED with the output tail) or readyTimeout passes.
func waitReady(ctx context.Context, eth *ethclient.Client, proc *anvilProcess) error {
	deadline := time.Now().Add(readyTimeout)
	for {
		actx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
		_, err := eth.BlockNumber(actx)
		cancel()
		if err == nil {
			return nil
		}
		if proc.exited() {
			tail := proc.out.lastLines()
			if strings.Contains(strings.ToLower(strings.Join(tail, "\n")), "address already in use") {
				return sdk.Errorf(sdk.CodePortInUse, "anvil could not listen: the port is in use; stop what listens there or choose another port").
					WithDetails(map[string]any{"tail": strings.Join(tail, "\n")})
			}
			return sdk.Errorf(sdk.CodeLaunchFailed, "anvil exited before it answered: %s", lastNonEmpty(tail, proc.err)).
				WithDetails(map[string]any{"tail": strings.Join(tail, "\n")})
		}
		if ctx.Err() != nil {
			return sdk.Errorf(sdk.CodeCancelled, "anvil start cancelled: %w", ctx.Err())
		}
		if time.Now().After(deadline) {
			return sdk.Errorf(sdk.CodeLaunchFailed, "anvil did not answer within %s", readyTimeout).
				WithDetails(map[string]any{"tail": strings.Join(proc.out.lastLines(), "\n")})
		}
		select {
		case <-time.After(readyPoll):
		case <-proc.done:
		case <-ctx.Done():
		}
	}
}

func lastNonEmpty(lines []string, err error) string {
	if len(lines) > 0 {
		return lines[len(lines)-1]
	}
	if err != nil {
		return err.Error()
	}
	return "no output"
}

// checkPortFree is MM_PORT_IN_USE when something listens on 127.0.0.1:port.
func checkPortFree(port int) error {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return sdk.Errorf(sdk.CodePortInUse, "port %d is in use; stop what listens there or choose another port", port).
			WithDetails(map[string]any{"port": port, "error": err.Error()})
	}
	return l.Close()
}

// portInUse is MM_PORT_IN_USE for a busy port, naming where the port came
// from (details.source): "start" (the start's own port), "setting" (the
// plugin's port setting) or "default" (sdk.DefaultAnvilPort, which a
// caller that gave no port may retry with FreePort).
func portInUse(port int, source string) error {
	how := "choose another port"
	switch source {
	case "setting":
		how = "change the chain plugin's port setting (plugins.chain.settings.port)"
	case "default":
		how = "give a port (mm_launch's ports.anvil or the chain plugin's port setting), or start with freePort"
	}
	return sdk.Errorf(sdk.CodePortInUse, "port %d is in use by another process, so Anvil cannot listen there; stop what listens there or %s", port, how).
		WithDetails(map[string]any{"port": port, "source": source})
}

// portSource says where a start's port comes from: the start's options,
// the plugin's port setting, or the default.
func portSource(opts sdk.ChainOptions, s Settings) string {
	switch {
	case opts.Port != 0:
		return "start"
	case s.Port != 0:
		return "setting"
	}
	return "default"
}

// portOf extracts the port of an http URL, 0 when there is none.
func portOf(rawURL string) int {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0
	}
	port, _ := strconv.Atoi(u.Port())
	return port
}
