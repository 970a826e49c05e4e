package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// Main is the whole main of a plugin binary:
//
//	func main() { sdk.Main(chain.New(sdk.Logger("chain"))) }
//
// Without arguments it serves p to the host (Serve). It also provides the
// standalone modes every plugin gets for free:
//
//	describe                     print the plugin's Describe output as JSON
//	                             (a host runs it to list the plugin's tools
//	                             before the plugin's first start)
//	call <tool> '<json>' [-hold] run one tool in-process and print its result;
//	                             -hold keeps the process (and what the tool
//	                             started, an Anvil say) up until Ctrl-C
//	-debug                       serve, and print MMCP_REATTACH_PLUGINS=...
//	                             for a host to attach to (run it under dlv)
//
// Main does not return.
func Main(p Plugin) {
	os.Exit(run(p, os.Args[1:], os.Stdout))
}

func run(p Plugin, args []string, out io.Writer) int {
	nullStdin()
	if len(args) == 0 {
		Serve(p)
		return 0
	}
	switch args[0] {
	case "describe":
		return describeCmd(p, out)
	case "call":
		return callCmd(p, args[1:], out)
	case "-debug", "--debug":
		return debugCmd(p, out)
	default:
		fmt.Fprintf(os.Stderr, "usage: %s [describe | call <tool> '<json>' [-hold] | -debug]\n", filepath.Base(os.Args[0]))
		return 2
	}
}

// Serve serves p to the host over go-plugin gRPC until the host disconnects,
// the parent dies, or SIGTERM arrives; p.Stop runs in every case.
func Serve(p Plugin) {
	nullStdin()
	stop := stopOnce(p)
	go watchParent(stop)
	// Logging into the pipe of a host that died must not kill the plugin
	// (SIGPIPE) before Stop has released its children.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM)
		<-ch
		stop()
		os.Exit(0)
	}()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: PluginSet(p),
		GRPCServer:       plugin.DefaultGRPCServer,
		Logger:           Logger(p.Info().Name),
	})
	stop()
}

// stopOnce returns a stop that runs p.Stop exactly once; a second caller
// waits until the first Stop has returned (its caller then exits, and must
// not do so while Anvil or yarn children are still being released).
func stopOnce(p Plugin) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = p.Stop(ctx)
		})
	}
}

// watchParent stops the plugin and exits when the process that started it
// is gone (the host was SIGKILLed), so no plugin and no child of a plugin
// outlives the host.
func watchParent(stop func()) {
	ppid := os.Getppid()
	for range time.Tick(200 * time.Millisecond) {
		if os.Getppid() != ppid {
			stop()
			os.Exit(0)
		}
	}
}

// description is what `describe` prints: the JSON of the host's
// pluginhost.Description.
type description struct {
	Info
	APIVersion   int          `json:"apiVersion"`
	Capabilities []Capability `json:"capabilities"`
	Tools        []Tool       `json:"tools"`
}

func describeCmd(p Plugin, out io.Writer) int {
	desc := description{Info: p.Info(), APIVersion: APIVersion, Capabilities: Capabilities(p)}
	if tp, ok := p.(ToolProvider); ok {
		desc.Tools = tp.Tools()
	}
	b, _ := json.MarshalIndent(desc, "", "  ")
	fmt.Fprintln(out, string(b))
	return 0
}

func callCmd(p Plugin, args []string, out io.Writer) int {
	hold := false
	var pos []string
	for _, a := range args {
		if a == "-hold" || a == "--hold" {
			hold = true
			continue
		}
		pos = append(pos, a)
	}
	if len(pos) < 1 || len(pos) > 2 {
		fmt.Fprintln(os.Stderr, "usage: call <tool> '<json>' [-hold]")
		return 2
	}
	tp, ok := p.(ToolProvider)
	if !ok {
		fmt.Fprintf(os.Stderr, "plugin %s has no tools\n", p.Info().Name)
		return 2
	}
	argJSON := json.RawMessage("{}")
	if len(pos) == 2 {
		argJSON = json.RawMessage(pos[1])
		if !json.Valid(argJSON) {
			fmt.Fprintln(os.Stderr, "arguments are not valid JSON")
			return 2
		}
	}
	if err := validateCall(tp, pos[0], argJSON); err != nil {
		b, _ := json.MarshalIndent(map[string]any{"ok": false, "error": err}, "", "  ")
		fmt.Fprintln(out, string(b))
		return 1
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	stop := stopOnce(p)
	defer stop()
	if err := p.Configure(ctx, standaloneConfig()); err != nil {
		fmt.Fprintln(os.Stderr, "configure:", err)
		return 1
	}
	r, err := tp.CallTool(ctx, CallToolRequest{Name: pos[0], Arguments: argJSON}, stderrEvents{})
	code := 0
	var res any = map[string]any{"ok": true, "result": r.Result}
	if err != nil {
		res = map[string]any{"ok": false, "error": AsError(err)}
		code = 1
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintln(out, string(b))
	if hold && code == 0 {
		fmt.Fprintln(os.Stderr, "holding; press Ctrl-C to stop")
		<-ctx.Done()
	}
	return code
}

// validateCall checks a standalone call the way the host does: the tool
// exists and the arguments match its schema.
func validateCall(tp ToolProvider, name string, args json.RawMessage) *Error {
	var names []string
	for _, t := range tp.Tools() {
		if t.Name != name {
			names = append(names, t.Name)
			continue
		}
		s, err := CompileSchema(name, t.InputSchema)
		if err != nil {
			return Errorf(CodeInternal, "%w", err)
		}
		return s.Validate(name, args)
	}
	return Errorf(CodeInvalidInput, "no tool %q; the tools are %s", name, strings.Join(names, ", ")).
		WithDetails(map[string]any{"available": names})
}

// standaloneConfig is the configuration of the call mode: the workspace from
// MMCP_REPO, else the working directory.
func standaloneConfig() Config {
	ws := os.Getenv("MMCP_REPO")
	if ws == "" {
		ws, _ = os.Getwd()
	}
	ws, _ = filepath.Abs(ws)
	return Config{Workspace: ws, ArtifactsDir: filepath.Join(ws, "test-artifacts"), LogLevel: os.Getenv(EnvLogLevel)}
}

type stderrEvents struct{}

func (stderrEvents) Progress(done, total float64, msg string) {
	fmt.Fprintf(os.Stderr, "progress %v/%v %s\n", done, total, msg)
}

func (stderrEvents) Log(level, msg string) { fmt.Fprintf(os.Stderr, "[%s] %s\n", level, msg) }

func debugCmd(p Plugin, out io.Writer) int {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: PluginSet(p),
		GRPCServer:       plugin.DefaultGRPCServer,
		Logger:           Logger(p.Info().Name),
		Test:             &plugin.ServeTestConfig{Context: ctx, ReattachConfigCh: reattach, CloseCh: closed},
	})
	select {
	case rc := <-reattach:
		fmt.Fprintf(out, "%s='%s'\n", wire.EnvReattach, wire.ReattachJSON(p.Info().Name, APIVersion, rc))
	case <-closed:
		fmt.Fprintln(os.Stderr, "plugin server stopped before it was ready")
		return 1
	}
	<-closed
	stopOnce(p)()
	return 0
}
