// Package plugintest serves a plugin in-process over a real gRPC connection
// (go-plugin's test harness), so a plugin's tests exercise exactly the wire
// path the host uses, without building a binary.
package plugintest

import (
	"testing"

	"github.com/hashicorp/go-plugin"

	"github.com/mmcp-dev/mmcp/sdk"
)

// Serve serves p and returns the host's client for it. The connection and
// the server are closed, and p stopped, when the test ends.
func Serve(t testing.TB, p sdk.Plugin) *sdk.PluginConn {
	t.Helper()
	client, server := plugin.TestPluginGRPCConn(t, false, sdk.PluginSet(p)[sdk.APIVersion])
	t.Cleanup(func() {
		// The server first: the client's Close asks the server to stop
		// (go-plugin's controller Shutdown), and two Stops of one
		// go-plugin GRPCServer race on its broker.
		server.Stop()
		_ = client.Close()
	})
	c, err := sdk.Dispense(client)
	if err != nil {
		t.Fatalf("dispense: %v", err)
	}
	return c
}
