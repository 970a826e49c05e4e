package sdk

import (
	"github.com/hashicorp/go-plugin"

	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// Handshake is the go-plugin handshake shared by the host and every plugin.
// It is not a security measure: it stops a plugin binary started by hand
// from waiting forever for a host that is not there.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  APIVersion,
	MagicCookieKey:   "MMCP_PLUGIN",
	MagicCookieValue: "e2b6b0c4-mmcp-plugin",
}

// PluginSet returns the versioned plugin set that serves impl (a go-plugin
// ServeConfig's VersionedPlugins). The host's half is package pluginhost.
func PluginSet(impl Plugin) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		APIVersion: {wire.PluginKey: &grpcPlugin{impl: impl}},
	}
}
