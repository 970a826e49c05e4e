// Command testplugin is a misbehaving plugin for the host's end-to-end
// tests. Its behaviour follows the name it is installed under:
//
//	mmcp-plugin-slow       tool sleep {ms, lines}: logs lines, then sleeps
//	mmcp-plugin-badschema  a tool whose input schema is not an object schema
//	mmcp-plugin-crash      exits before the handshake
//	mmcp-plugin-mm         tools click (mm_click clashes with the host's) and extra
//	mmcp-plugin-marker     the slow plugin that first writes <binary>.ran (proof it was executed)
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

type plugin struct{ name string }

// The host lists a plugin's tools only when it is a sdk.ToolProvider: a
// signature that drifts from the interface must fail the build, not drop
// the tools silently.
var _ sdk.ToolProvider = (*plugin)(nil)

func (p *plugin) Info() sdk.Info                              { return sdk.Info{Name: p.name, Version: "0.0.1"} }
func (p *plugin) Configure(context.Context, sdk.Config) error { return nil }
func (p *plugin) Stop(context.Context) error                  { return nil }

func (p *plugin) Tools() []sdk.Tool {
	switch p.name {
	case "badschema":
		return []sdk.Tool{{Name: "broken", InputSchema: json.RawMessage(`{"type":"string"}`)}}
	case "mm":
		return []sdk.Tool{
			{Name: "click", Description: "Clashes with the host's mm_click.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "extra", Description: "Does not clash.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		}
	default:
		return []sdk.Tool{
			{Name: "sleep", Description: "Logs lines, then sleeps.", InputSchema: json.RawMessage(
				`{"type":"object","additionalProperties":false,"properties":{"ms":{"type":"integer","minimum":0},"lines":{"type":"integer","minimum":0}}}`)},
			{Name: "pid", Description: "Returns the plugin's pid.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		}
	}
}

func (p *plugin) CallTool(ctx context.Context, req sdk.CallToolRequest, ev sdk.Events) (sdk.CallToolResponse, error) {
	if req.Name == "pid" || req.Name == "extra" {
		return sdk.CallToolResponse{Result: map[string]int{"pid": os.Getpid()}}, nil
	}
	var in struct{ Ms, Lines int }
	_ = json.Unmarshal(req.Arguments, &in)
	for i := 0; i < in.Lines; i++ {
		ev.Log("info", fmt.Sprintf("line %d of noisy plugin output {\"not\":\"json-rpc\"}", i))
		fmt.Fprintf(os.Stderr, "stderr line %d\n", i)
	}
	select {
	case <-time.After(time.Duration(in.Ms) * time.Millisecond):
	case <-ctx.Done():
		return sdk.CallToolResponse{}, ctx.Err()
	}
	return sdk.CallToolResponse{Result: map[string]any{"slept": in.Ms, "pid": os.Getpid()}}, nil
}

func main() {
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), "mmcp-plugin-")
	if name == "marker" {
		_ = os.WriteFile(os.Args[0]+".ran", []byte(fmt.Sprint(os.Getpid())), 0o600)
	}
	if name == "crash" {
		fmt.Fprintln(os.Stderr, "crash plugin: giving up before the handshake")
		os.Exit(3)
	}
	sdk.Main(&plugin{name: name})
}
