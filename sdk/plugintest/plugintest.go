// Package plugintest serves a plugin in-process over a real gRPC connection
// (go-plugin's test harness), so a plugin's tests exercise exactly the wire
// path the host uses, without building a binary.
package plugintest

import (
	"context"
	"testing"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
)

// Serve serves p and returns the host's client for it. The connection and
// the server are closed, and p stopped, when the test ends.
func Serve(t testing.TB, p sdk.Plugin) *pluginhost.Conn {
	t.Helper()
	both := map[string]plugin.Plugin{wire.PluginKey: halves{
		server: sdk.PluginSet(p)[sdk.APIVersion][wire.PluginKey].(plugin.GRPCPlugin),
		client: pluginhost.PluginSet()[sdk.APIVersion][wire.PluginKey].(plugin.GRPCPlugin),
	}}
	client, server := plugin.TestPluginGRPCConn(t, false, both)
	t.Cleanup(func() {
		// The server first: the client's Close asks the server to stop
		// (go-plugin's controller Shutdown), and two Stops of one
		// go-plugin GRPCServer race on its broker.
		server.Stop()
		_ = client.Close()
	})
	c, err := pluginhost.Dispense(client)
	if err != nil {
		t.Fatalf("dispense: %v", err)
	}
	return c
}

// halves joins the plugin's half of the protocol (sdk) and the host's
// (pluginhost) into the one go-plugin Plugin the test harness wants.
type halves struct {
	plugin.NetRPCUnsupportedPlugin
	server, client plugin.GRPCPlugin
}

func (h halves) GRPCServer(b *plugin.GRPCBroker, s *grpc.Server) error {
	return h.server.GRPCServer(b, s)
}

func (h halves) GRPCClient(ctx context.Context, b *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return h.client.GRPCClient(ctx, b, c)
}
