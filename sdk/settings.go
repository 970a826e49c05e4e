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
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Errorf(CodeInvalidConfig, "invalid %s plugin settings: %v", plugin, err)
	}
	return nil
}
