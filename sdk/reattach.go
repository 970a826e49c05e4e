package sdk

import (
	"encoding/json"
	"fmt"
	"net"

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

// ParseReattach decodes MMCP_REATTACH_PLUGINS: a JSON object from plugin name
// to Reattach.
func ParseReattach(s string) (map[string]*plugin.ReattachConfig, error) {
	var raw map[string]Reattach
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", EnvReattach, err)
	}
	out := make(map[string]*plugin.ReattachConfig, len(raw))
	for name, r := range raw {
		var addr net.Addr
		switch r.Addr.Network {
		case "unix":
			addr = &net.UnixAddr{Net: "unix", Name: r.Addr.String}
		case "tcp":
			a, err := net.ResolveTCPAddr("tcp", r.Addr.String)
			if err != nil {
				return nil, fmt.Errorf("%s: plugin %q: %w", EnvReattach, name, err)
			}
			addr = a
		default:
			return nil, fmt.Errorf("%s: plugin %q: unknown network %q", EnvReattach, name, r.Addr.Network)
		}
		if r.ProtocolVersion == 0 {
			r.ProtocolVersion = APIVersion
		}
		out[name] = &plugin.ReattachConfig{
			Protocol:        plugin.Protocol(r.Protocol),
			ProtocolVersion: r.ProtocolVersion,
			Pid:             r.Pid,
			Test:            true, // never killed by the host
			Addr:            addr,
		}
	}
	return out, nil
}

func reattachJSON(name string, rc *plugin.ReattachConfig) string {
	b, _ := json.Marshal(map[string]Reattach{name: {
		Protocol:        string(rc.Protocol),
		ProtocolVersion: APIVersion,
		Pid:             rc.Pid,
		Test:            true,
		Addr:            ReattachAddr{Network: rc.Addr.Network(), String: rc.Addr.String()},
	}})
	return string(b)
}
