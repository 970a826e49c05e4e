// Package wire is what both halves of the plugin protocol agree on beyond
// the .proto files: the go-plugin key, how a domain error travels, and the
// MMCP_REATTACH_PLUGINS format. The plugin's half (package sdk) and the
// host's half (package pluginhost) import it; nothing else can.
package wire

import (
	"encoding/json"

	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
	"github.com/mmcp-dev/mmcp/sdk/mmerr"
)

// PluginKey is the single entry of the go-plugin plugin set.
const PluginKey = "mmcp"

// ToPBError splits err into a domain failure (returned as data) or a
// transport-level error (returned as the gRPC error).
func ToPBError(err error) (*pb.Error, error) {
	if err == nil {
		return nil, nil
	}
	e := mmerr.AsError(err)
	var details []byte
	if len(e.Details) > 0 {
		details, _ = json.Marshal(e.Details)
	}
	return &pb.Error{Code: e.Code, Message: e.Message, DetailsJson: details}, nil
}

// FromPBError turns a response's Error field back into an *mmerr.Error (or
// nil).
func FromPBError(e *pb.Error) error {
	if e == nil || e.Code == "" {
		return nil
	}
	out := &mmerr.Error{Code: e.Code, Message: e.Message}
	if len(e.DetailsJson) > 0 {
		_ = json.Unmarshal(e.DetailsJson, &out.Details)
	}
	return out
}
