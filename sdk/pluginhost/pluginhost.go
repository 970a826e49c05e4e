// Package pluginhost is the host's half of the mmcp plugin protocol: the
// go-plugin client set-up (PluginSet, Dispense), the connection to one
// plugin (Conn) whose capability accessors return the sdk interfaces, and
// MMCP_REATTACH_PLUGINS. A plugin author never needs it: package sdk is the
// plugin's half (Serve, Main, the capability interfaces).
package pluginhost

import (
	"context"
	"errors"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// clientPlugin is the host side's go-plugin glue: it dispenses a *Conn.
type clientPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (clientPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("pluginhost only dispenses plugins; sdk.Serve serves them")
}

func (clientPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return newConn(c), nil
}

// PluginSet returns the versioned plugin set of a go-plugin ClientConfig.
func PluginSet() map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		sdk.APIVersion: {wire.PluginKey: clientPlugin{}},
	}
}

// Dispense returns the *Conn of a started go-plugin client.
func Dispense(rc plugin.ClientProtocol) (*Conn, error) {
	raw, err := rc.Dispense(wire.PluginKey)
	if err != nil {
		return nil, err
	}
	return raw.(*Conn), nil
}
