package sdk

import (
	"bytes"
	"encoding/json"
)

// DecodeSettings decodes a plugin's settings (Config.Settings) into v
// strictly: an unknown key is an MM_INVALID_CONFIG error naming it, so a
// typo never falls back to a default silently. Empty or null settings leave
// v as it is.
func DecodeSettings(plugin string, raw json.RawMessage, v any) error {
	if err := decodeStrict(raw, v); err != nil {
		return Errorf(CodeInvalidConfig, "invalid %s plugin settings: %w", plugin, err)
	}
	return nil
}

// DecodeArgs decodes a tool call's arguments into v strictly: an unknown
// key is MM_INVALID_INPUT. Empty or null arguments leave v as it is. The
// host validates against the tool's schema first; this also guards calls
// that reach a plugin some other way.
func DecodeArgs(args json.RawMessage, v any) error {
	if err := decodeStrict(args, v); err != nil {
		return Errorf(CodeInvalidInput, "invalid arguments: %w", err)
	}
	return nil
}

func decodeStrict(raw json.RawMessage, v any) error {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
