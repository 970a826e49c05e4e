package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// Description is what a plugin says about itself.
type Description struct {
	sdk.Info
	APIVersion   int              `json:"apiVersion"`
	Capabilities []sdk.Capability `json:"capabilities"`
	Tools        []sdk.Tool       `json:"tools"`
}

// Has reports whether the plugin declared capability c.
func (d Description) Has(c sdk.Capability) bool {
	for _, x := range d.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// Conn is one connection to one plugin.
// Its capability accessors return the Go-native interfaces, so the host
// (and tests through plugintest) use a remote plugin exactly like a local
// one. A domain failure comes back as *sdk.Error; any other error means the
// plugin or the connection failed.
type Conn struct {
	base      pb.PluginClient
	tools     pb.ToolsClient
	build     pb.BuildClient
	chain     pb.ChainClient
	contracts pb.ContractSeedingClient
	fixture   pb.FixtureClient
	state     pb.StateSnapshotClient
	mock      pb.MockServerClient
}

func newConn(c *grpc.ClientConn) *Conn {
	return &Conn{
		base:      pb.NewPluginClient(c),
		tools:     pb.NewToolsClient(c),
		build:     pb.NewBuildClient(c),
		chain:     pb.NewChainClient(c),
		contracts: pb.NewContractSeedingClient(c),
		fixture:   pb.NewFixtureClient(c),
		state:     pb.NewStateSnapshotClient(c),
		mock:      pb.NewMockServerClient(c),
	}
}

// Describe asks the plugin for its name, capabilities and tools.
func (c *Conn) Describe(ctx context.Context) (Description, error) {
	r, err := c.base.Describe(ctx, &pb.Empty{})
	if err != nil {
		return Description{}, err
	}
	d := Description{Info: sdk.Info{Name: r.Name, Version: r.Version}, APIVersion: int(r.ApiVersion)}
	for _, cp := range r.Capabilities {
		d.Capabilities = append(d.Capabilities, sdk.Capability(cp))
	}
	for _, t := range r.Tools {
		d.Tools = append(d.Tools, sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchemaJson})
	}
	return d, nil
}

// Configure hands the plugin its configuration.
func (c *Conn) Configure(ctx context.Context, cfg sdk.Config) error {
	r, err := c.base.Configure(ctx, &pb.ConfigureRequest{Workspace: cfg.Workspace,
		ArtifactsDir: cfg.ArtifactsDir, LogLevel: cfg.LogLevel, SettingsJson: cfg.Settings})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

// Stop asks the plugin to cancel its work and release its children.
func (c *Conn) Stop(ctx context.Context) error {
	r, err := c.base.Stop(ctx, &pb.Empty{})
	if err != nil {
		return err
	}
	return wire.FromPBError(r.Error)
}

// CallTool runs one of the plugin's tools, forwarding its events to ev (may
// be nil). The result is the tool's JSON value.
func (c *Conn) CallTool(ctx context.Context, name string, args json.RawMessage, ev sdk.Events) (json.RawMessage, error) {
	s, err := c.tools.CallTool(ctx, &pb.CallToolRequest{Name: name, ArgsJson: args})
	if err == nil {
		var out json.RawMessage
		out, err = recvResult(s, ev)
		if err == nil {
			return out, nil
		}
	}
	if st, ok := status.FromError(err); ok && st.Code() == codes.ResourceExhausted {
		// A message over gRPC's size limit (4 MB by default) on either side.
		return nil, sdk.Errorf(sdk.CodeInvalidInput, "%s: the call (arguments of %d bytes) or its result is larger than the plugin protocol's message limit; send smaller arguments", name, len(args)).
			WithDetails(map[string]any{"argumentBytes": len(args)})
	}
	return nil, err
}

// eventStream is the receive half shared by every streaming call.
type eventStream interface {
	Recv() (*pb.Event, error)
}

// errNoResult means a stream ended without its result event: the plugin
// died or broke the protocol.
var errNoResult = errors.New("plugin stream ended without a result")

func recvResult(s eventStream, ev sdk.Events) (json.RawMessage, error) {
	if ev == nil {
		ev = sdk.NopEvents{}
	}
	for {
		e, err := s.Recv()
		if err == io.EOF {
			return nil, errNoResult
		}
		if err != nil {
			return nil, err
		}
		switch k := e.Kind.(type) {
		case *pb.Event_Progress:
			ev.Progress(k.Progress.Done, k.Progress.Total, k.Progress.Message)
		case *pb.Event_Log:
			ev.Log(k.Log.Level, k.Log.Message)
		case *pb.Event_Result:
			if err := wire.FromPBError(k.Result.Error); err != nil {
				return nil, err
			}
			return k.Result.Json, nil
		}
	}
}
