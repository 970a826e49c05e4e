package client

import (
	"os/exec"
	"strings"
	"testing"
)

// TestClientLinksNoPluginProtocol: a Go client user links neither gRPC nor
// go-plugin (the error type comes from sdk/mmerr, not sdk).
func TestClientLinksNoPluginProtocol(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/mmcp-dev/mmcp/client").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "google.golang.org/grpc") || strings.HasPrefix(dep, "github.com/hashicorp/go-plugin") {
			t.Errorf("client depends on %s", dep)
		}
	}
}
