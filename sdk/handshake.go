package sdk

import (
	"github.com/hashicorp/go-plugin"
)

// Handshake is the go-plugin handshake shared by the host and every plugin.
// It is not a security measure: it stops a plugin binary started by hand
// from waiting forever for a host that is not there.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  APIVersion,
	MagicCookieKey:   "MMCP_PLUGIN",
	MagicCookieValue: "e2b6b0c4-mmcp-plugin",
}

// pluginKey is the single entry of the go-plugin plugin set.
const pluginKey = "mmcp"

// PluginSet returns the versioned plugin set for a go-plugin ClientConfig
// (host side, impl nil) or ServeConfig (plugin side).
func PluginSet(impl Plugin) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		APIVersion: {pluginKey: &grpcPlugin{impl: impl}},
	}
}

// Dispense returns the *PluginConn of a started go-plugin client.
func Dispense(rc plugin.ClientProtocol) (*PluginConn, error) {
	raw, err := rc.Dispense(pluginKey)
	if err != nil {
		return nil, err
	}
	return raw.(*PluginConn), nil
}
