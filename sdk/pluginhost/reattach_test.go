package pluginhost

import (
	"net"
	"strings"
	"testing"

	"github.com/hashicorp/go-plugin"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/internal/wire"
)

// TestReattachRoundTrip: what `<plugin> -debug` prints is what the host
// attaches to, and the host never kills such a plugin.
func TestReattachRoundTrip(t *testing.T) {
	printed := wire.ReattachJSON("chain", sdk.APIVersion, &plugin.ReattachConfig{
		Protocol: plugin.ProtocolGRPC, Pid: 4242, Addr: &net.UnixAddr{Net: "unix", Name: "/tmp/plugin42"}})
	rcs, err := ParseReattach(printed)
	if err != nil {
		t.Fatal(err)
	}
	rc := rcs["chain"]
	if rc == nil || rc.Pid != 4242 || rc.Protocol != plugin.ProtocolGRPC || rc.ProtocolVersion != sdk.APIVersion ||
		rc.Addr.Network() != "unix" || rc.Addr.String() != "/tmp/plugin42" || !rc.Test {
		t.Fatalf("parsed %s as %+v", printed, rc)
	}
}

func TestParseReattachRejects(t *testing.T) {
	for in, want := range map[string]string{
		`not json`: "not valid JSON",
		`{"chain":{"Protocol":"grpc","Addr":{"Network":"pipe","String":"x"}}}`: `plugin "chain": unknown network "pipe"`,
	} {
		_, err := ParseReattach(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), EnvReattach) {
			t.Errorf("ParseReattach(%s) = %v, want an error naming %s and %q", in, err, EnvReattach, want)
		}
	}
}
