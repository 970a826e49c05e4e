package sdk

import (
	"context"
	"errors"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
)

// grpcPlugin is the plugin side's go-plugin glue: it registers the services
// the implementation supports. The client side is package pluginhost's.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl Plugin
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	register(s, p.impl)
	return nil
}

func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("sdk serves plugins; a host dispenses them with package pluginhost")
}

// register adds the base service and one service per capability impl has.
func register(s *grpc.Server, impl Plugin) {
	pb.RegisterPluginServer(s, &pluginServer{impl: impl})
	if t, ok := impl.(ToolProvider); ok {
		pb.RegisterToolsServer(s, &toolsServer{impl: t})
	}
	if b, ok := impl.(Builder); ok {
		pb.RegisterBuildServer(s, &buildServer{impl: b})
	}
	if c, ok := impl.(Chain); ok {
		pb.RegisterChainServer(s, &chainServer{impl: c})
	}
	if c, ok := impl.(ContractSeeder); ok {
		pb.RegisterContractSeedingServer(s, &contractsServer{impl: c})
	}
	if f, ok := impl.(Fixture); ok {
		pb.RegisterFixtureServer(s, &fixtureServer{impl: f})
	}
	if st, ok := impl.(StateSnapshotter); ok {
		pb.RegisterStateSnapshotServer(s, &stateSnapshotServer{impl: st})
	}
	if m, ok := impl.(MockServer); ok {
		pb.RegisterMockServerServer(s, &mockServer{impl: m})
	}
}

// Capabilities lists the capabilities impl implements.
func Capabilities(impl Plugin) []Capability {
	var caps []Capability
	if _, ok := impl.(Builder); ok {
		caps = append(caps, CapBuild)
		if _, ok := impl.(Watcher); ok {
			caps = append(caps, CapBuildWatch)
		}
	}
	if _, ok := impl.(Chain); ok {
		caps = append(caps, CapChain)
	}
	if _, ok := impl.(Fixture); ok {
		caps = append(caps, CapFixture)
	}
	if _, ok := impl.(ContractSeeder); ok {
		caps = append(caps, CapContractSeeding)
	}
	if _, ok := impl.(StateSnapshotter); ok {
		caps = append(caps, CapStateSnapshot)
	}
	if _, ok := impl.(MockServer); ok {
		caps = append(caps, CapMockServer)
	}
	if _, ok := impl.(ToolProvider); ok {
		caps = append(caps, CapTools)
	}
	return caps
}
