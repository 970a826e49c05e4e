package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/host/config"
	hostsession "github.com/mmcp-dev/mmcp/host/session"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mmcp-dev/mmcp/client"
)

// cliConnectTimeout bounds connecting to (or spawning) a host for the CLI.
const cliConnectTimeout = 60 * time.Second

// cliConn is the CLI's connection to a host: attached to a running
// `mmcp serve --http` of the workspace, or a host spawned for the command.
type cliConn struct {
	*client.Handle
	// Attached is the serve it attached to (nil when spawned).
	Attached *ServeState
	logFile  *os.File
}

// Close closes the connection; a spawned host exits (ending its session).
func (c *cliConn) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = c.Handle.Close(ctx)
	if c.logFile != nil {
		_ = c.logFile.Close()
	}
}

// spawnArgs are the host flags of raw (flag values as given) for a host
// spawned over stdio on the workspace repo.
func spawnArgs(raw config.Config, repo string) []string {
	args := []string{"--repo", repo}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	add("--artifacts-dir", raw.ArtifactsDir)
	add("--visual-baselines", raw.VisualBaselines)
	if len(raw.PluginPath) > 0 {
		args = append(args, "--plugin-path", strings.Join(raw.PluginPath, string(os.PathListSeparator)))
	}
	add("--config", raw.ConfigFile)
	level := raw.LogLevel
	if level == "" && os.Getenv("MMCP_LOG_LEVEL") == "" {
		level = "warn" // a CLI command shows its result, not the host's chatter
	}
	add("--log-level", level)
	add("--log-file", raw.LogFile)
	add("--tool-prefix", raw.ToolPrefix)
	add("--chrome", raw.Chrome)
	if raw.Headless {
		args = append(args, "--headless")
	}
	add("--cdp-url", raw.CDPURL)
	add("--extension", raw.Extension)
	if raw.TrustWorkspacePlugins {
		args = append(args, "--trust-workspace-plugins")
	}
	if raw.MaxRequestBytes > 0 {
		add("--max-request-bytes", fmt.Sprint(raw.MaxRequestBytes))
	}
	if raw.MaxRecordBytes > 0 {
		add("--max-record-bytes", fmt.Sprint(raw.MaxRecordBytes))
	}
	if raw.MaxSessions > 0 {
		add("--max-sessions", fmt.Sprint(raw.MaxSessions))
	}
	add("--mode", raw.Mode)
	if raw.SettleTimeout > 0 {
		add("--settle-timeout", raw.SettleTimeout.String())
	}
	return args
}

// sessionFlag adds --session to a subcommand that calls tools.
func sessionFlag(fs *flag.FlagSet) {
	fs.String("session", "", "with a running mmcp serve --http: act on this wallet session (default: the only running one)")
}

// callLog is where a CLI command appends its JSONL call log.
type callLog struct {
	// Path is the log file; "" means no log.
	Path string
	// Sidecars writes large results to <dir of Path>/.mcp-log/<seq>-<tool>.txt.
	Sidecars bool
}

// logFlags adds --log and --sidecars to a subcommand.
func logFlags(fs *flag.FlagSet, what string) {
	fs.String("log", "", "append the JSONL call log of "+what+" to this file (its _seq continues)")
	fs.Bool("sidecars", false, "with --log: write results over 200 characters to "+client.DefaultSidecarDir+"/<seq>-<tool>.txt next to the log")
}

// logOf is the call log that logFlags' flags ask for.
func logOf(f Flags) callLog { return callLog{Path: f.String("log"), Sidecars: f.Bool("sidecars")} }

// connectCLI attaches to the workspace's running serve, else spawns this
// executable as a stdio host with the same flags. With log.Path it appends
// the JSONL call log there, continuing its _seq. Attached, its calls act
// on wallet session session, or with "" on the only running one (a launch
// starts one when none runs); spawned, there is no session to name.
func connectCLI(ctx context.Context, raw config.Config, log callLog, session string, stderr io.Writer) (*cliConn, error) {
	resolved := raw
	resolved.PluginPath = append([]string(nil), raw.PluginPath...)
	if err := resolved.Resolve(); err != nil {
		return nil, err
	}
	conn := &cliConn{}
	opts := client.Options{Log: client.LoggerOptions{Writer: io.Discard}}
	if log.Sidecars && log.Path == "" {
		return nil, errors.New("--sidecars needs --log FILE")
	}
	if log.Path != "" {
		last, err := client.LastSeq(log.Path)
		if err != nil {
			return nil, fmt.Errorf("call log: %w", err)
		}
		f, err := os.OpenFile(log.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("call log: %w", err)
		}
		conn.logFile = f
		opts.Log.Writer = f
		opts.Log.SeqOffset = last
		if log.Sidecars {
			opts.Log.Sidecars = true
			opts.Log.SidecarDir = filepath.Join(filepath.Dir(log.Path), client.DefaultSidecarDir)
		}
	}
	if st, ok := ReadServeState(resolved.Repo); ok {
		conn.Attached = st
		opts.URL, opts.Token = st.URL, st.Token
		if session == "" {
			session = hostsession.AttachAny
		}
		opts.Headers = map[string]string{SessionHeader: session, ClientHeader: CLIClient}
	} else if session != "" {
		conn.closeLog()
		return nil, fmt.Errorf("--session %s: no mmcp serve --http runs for this workspace (%s), and a host spawned for one command has no session to attach to", session, ServeStatePath(resolved.Repo))
	} else {
		exe, err := os.Executable()
		if err != nil {
			conn.closeLog()
			return nil, fmt.Errorf("spawn host: %w", err)
		}
		opts.Command = client.Command{Path: exe, Args: spawnArgs(raw, resolved.Repo), Stderr: stderr}
	}
	cctx, cancel := context.WithTimeout(ctx, cliConnectTimeout)
	defer cancel()
	h, err := client.Connect(cctx, opts)
	if err != nil {
		conn.closeLog()
		if conn.Attached != nil {
			return nil, fmt.Errorf("attach to mmcp serve at %s (pid %d): %w", conn.Attached.URL, conn.Attached.PID, err)
		}
		return nil, err
	}
	conn.Handle = h
	return conn, nil
}

func (c *cliConn) closeLog() {
	if c.logFile != nil {
		_ = c.logFile.Close()
	}
}

// prettyResult returns the result's text, re-indented when it is JSON.
func prettyResult(res *mcp.CallToolResult) string {
	text := client.Text(res)
	var buf bytes.Buffer
	if json.Valid([]byte(text)) && json.Indent(&buf, []byte(text), "", "  ") == nil {
		return buf.String()
	}
	if text == "" && res != nil && len(res.Content) > 0 {
		b, _ := json.MarshalIndent(res.Content, "", "  ")
		return string(b)
	}
	return text
}

func init() {
	RegisterCommand(Command{
		Name:  "call",
		Usage: "[--session ID] [--log FILE [--sidecars]] <tool> ['<json arguments>' | -]",
		Short: "call one tool and print its envelope (exit 1 when ok is false)",
		Long: `It attaches to the workspace's running mmcp serve --http, else spawns a
host for the call. The arguments are a JSON object, or - to read it from
stdin.`,
		Flags: func(fs *flag.FlagSet) { logFlags(fs, "the call"); sessionFlag(fs) },
		Func:  runCall,
	})
	RegisterCommand(Command{
		Name:  "tools",
		Usage: "[--json]",
		Short: "list the tools and their input schemas (attaching or spawning, as call)",
		Flags: jsonFlag,
		Func:  runTools,
	})
}

// runCall is `mmcp call [--log FILE] <tool> ['<json>'|-]`: it prints the
// tool's envelope and exits 1 when the call failed (ok false).
func runCall(ctx context.Context, in Input) int {
	cfg, pos, stdin, stdout, stderr := in.Config, in.Args, in.Stdin, in.Stdout, in.Stderr
	if len(pos) < 1 || len(pos) > 2 {
		return in.Misused()
	}
	tool, raw := pos[0], "{}"
	if len(pos) == 2 {
		raw = pos[1]
	}
	if raw == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintln(stderr, "mmcp call: read arguments:", err)
			return 2
		}
		raw = string(b)
	}
	var callArgs map[string]any
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	if err := json.Unmarshal([]byte(raw), &callArgs); err != nil {
		fmt.Fprintf(stderr, "mmcp call: arguments must be a JSON object: %v\n", err)
		return 2
	}
	if callArgs == nil {
		callArgs = map[string]any{}
	}
	conn, err := connectCLI(ctx, cfg, logOf(in.Flags), in.Flags.String("session"), stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp call:", err)
		return 1
	}
	defer conn.Close()
	res, err := conn.Call(ctx, tool, callArgs)
	if err != nil {
		fmt.Fprintf(stderr, "mmcp call %s: %v\n", tool, err)
		return 1
	}
	fmt.Fprintln(stdout, prettyResult(res))
	if client.ResultError(res) != nil {
		return 1
	}
	return 0
}

// runTools is `mmcp tools [--json]`: the tools the host lists, with their
// input schemas.
func runTools(ctx context.Context, in Input) int {
	cfg, stdout, stderr := in.Config, in.Stdout, in.Stderr
	if len(in.Args) > 0 {
		return in.Misused()
	}
	asJSON := in.Flags.Bool("json")
	conn, err := connectCLI(ctx, cfg, callLog{}, "", stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mmcp tools:", err)
		return 1
	}
	defer conn.Close()
	tools := append([]mcp.Tool(nil), conn.Tools()...)
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	if asJSON {
		type row struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		rows := make([]row, 0, len(tools))
		for _, t := range tools {
			rows = append(rows, row{Name: t.Name, Description: t.Description, InputSchema: toolSchema(t)})
		}
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	for _, t := range tools {
		fmt.Fprintf(stdout, "%s\n", t.Name)
		if d := firstLine(t.Description); d != "" {
			fmt.Fprintf(stdout, "  %s\n", d)
		}
		fmt.Fprintf(stdout, "  schema: %s\n", toolSchema(t))
	}
	fmt.Fprintf(stdout, "%d tools (registry hash %s)\n", len(tools), conn.Hash())
	return 0
}

// toolSchema is the tool's input schema as compact JSON.
func toolSchema(t mcp.Tool) json.RawMessage {
	if len(t.RawInputSchema) > 0 {
		var buf bytes.Buffer
		if json.Compact(&buf, t.RawInputSchema) == nil {
			return buf.Bytes()
		}
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
