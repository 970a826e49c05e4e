// Package wire is what both halves of the plugin protocol agree on beyond
// the .proto files: the go-plugin key, how a domain error travels, and the
// MMCP_REATTACH_PLUGINS format. The plugin's half (package sdk) and the
// host's half (package pluginhost) import it; nothing else can.
package wire

import (
	"encoding/json"
	"strings"

	"github.com/mmcp-dev/mmcp/sdk/internal/pb"
	"github.com/mmcp-dev/mmcp/sdk/mmerr"
)

// PluginKey is the single entry of the go-plugin plugin set.
const PluginKey = "mmcp"

// ToPBError encodes err for a response's Error field: an *mmerr.Error
// found in err's chain as it is, any other error as MM_INTERNAL_ERROR with
// its text. Every error a capability returns travels this way, as data; a
// gRPC error is left for the transport's own failures. Code and message
// are made valid UTF-8 (an invalid byte becomes U+FFFD), since protobuf
// refuses to marshal any other string and the answer would be lost.
func ToPBError(err error) *pb.Error {
	if err == nil {
		return nil
	}
	e := mmerr.AsError(err)
	var details []byte
	if len(e.Details) > 0 {
		details, _ = json.Marshal(e.Details)
	}
	return &pb.Error{Code: ValidUTF8(e.Code), Message: ValidUTF8(e.Message), DetailsJson: details}
}

// ValidUTF8 is s with each run of invalid UTF-8 replaced by U+FFFD: what a
// string field of a protobuf message must hold.
func ValidUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

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
