package pluginhost

import (
	"encoding/json"
	"fmt"
	"net"

	"github.com/hashicorp/go-plugin"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// EnvReattach names the variable that lists plugins the host attaches to
// instead of starting them (the shape of Terraform's TF_REATTACH_PROVIDERS):
// a JSON object from plugin name to its address, as `<plugin> -debug`
// prints it. The host never kills such a plugin.
const EnvReattach = wire.EnvReattach

// ParseReattach decodes MMCP_REATTACH_PLUGINS: a JSON object from plugin name
// to its reattach entry.
func ParseReattach(s string) (map[string]*plugin.ReattachConfig, error) {
	var raw map[string]wire.Reattach
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
			r.ProtocolVersion = sdk.APIVersion
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
