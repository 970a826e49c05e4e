package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
	"github.com/mmcp-dev/mmcp/sdk/pluginhost"
	"github.com/mmcp-dev/mmcp/sdk/proc"
)

// describeTimeout bounds a plugin's describe run (describeRun).
const describeTimeout = 2 * time.Second

// describeLimit bounds what a describe run may print.
const describeLimit = 4 << 20

// describeRun runs the binary of s in the describe mode every plugin built
// on sdk.Main has: it prints its description as JSON and exits, without
// go-plugin's handshake, its certificates and its gRPC server. A host that
// has no cached description of s lists its tools from it and starts the
// plugin behind its first answer, as for a cached one. It answers false
// (the plugin then starts before the host serves, as without it) for a
// binary pinned by a checksum (go-plugin checks it before the start; it is
// never run unchecked), one with no such mode (a plugin with its own main
// serves, or refuses, and exits non-zero), one that takes longer than
// describeTimeout, prints more than describeLimit or what is not a usable
// description of this plugin API.
func (m *Manager) describeRun(ctx context.Context, s Spec) (pluginhost.Description, error) {
	if s.SHA256 != "" {
		return pluginhost.Description{}, fmt.Errorf("pinned by a checksum: checked at its start")
	}
	ctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Path, "describe")
	proc.Setup(cmd)
	cmd.Cancel = func() error { proc.KillGroup(cmd); return nil }
	cmd.Env = m.pluginEnv()
	var out, stderr limitedBuffer
	out.limit, stderr.limit = describeLimit, 4<<10
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s", describeTimeout)
		}
		return pluginhost.Description{}, fmt.Errorf("%w; stderr: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	if out.over {
		return pluginhost.Description{}, fmt.Errorf("printed more than %d bytes", describeLimit)
	}
	var d pluginhost.Description
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		return pluginhost.Description{}, fmt.Errorf("printed no description: %w", err)
	}
	if d.APIVersion != sdk.APIVersion {
		return pluginhost.Description{}, fmt.Errorf("describes plugin API %d, the host speaks %d", d.APIVersion, sdk.APIVersion)
	}
	for i, t := range d.Tools {
		var b bytes.Buffer
		if err := json.Compact(&b, t.InputSchema); err == nil {
			d.Tools[i].InputSchema = b.Bytes()
		}
	}
	if err := validateTools(d); err != nil {
		return pluginhost.Description{}, err
	}
	return d, nil
}

// limitedBuffer keeps the first limit bytes written to it and notes when
// more came.
type limitedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// sameDescription reports whether a and b describe the same plugin: equal
// as JSON, so a schema's layout (indentation in the plugin's source, none
// in the cache) is no difference.
func sameDescription(a, b pluginhost.Description) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
