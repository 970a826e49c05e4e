package wire

import (
	"encoding/json"

	"github.com/hashicorp/go-plugin"
)

// EnvReattach names the variable that lists plugins the host attaches to
// instead of starting them (the shape of Terraform's TF_REATTACH_PROVIDERS).
// The host never kills such a plugin.
const EnvReattach = "MMCP_REATTACH_PLUGINS"

// Reattach is one entry of MMCP_REATTACH_PLUGINS.
type Reattach struct {
	Protocol        string       `json:"Protocol"`
	ProtocolVersion int          `json:"ProtocolVersion"`
	Pid             int          `json:"Pid"`
	Test            bool         `json:"Test"`
	Addr            ReattachAddr `json:"Addr"`
}

// ReattachAddr is a listener address.
type ReattachAddr struct {
	Network string `json:"Network"`
	String  string `json:"String"`
}

// ReattachJSON is the MMCP_REATTACH_PLUGINS value that attaches a host to
// the plugin name served at rc (what `<plugin> -debug` prints).
func ReattachJSON(name string, version int, rc *plugin.ReattachConfig) string {
	b, _ := json.Marshal(map[string]Reattach{name: {
		Protocol:        string(rc.Protocol),
		ProtocolVersion: version,
		Pid:             rc.Pid,
		Test:            true,
		Addr:            ReattachAddr{Network: rc.Addr.Network(), String: rc.Addr.String()},
	}})
	return string(b)
}
