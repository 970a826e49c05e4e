package browser

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ExtensionIDFromPath computes the id Chrome gives the unpacked extension in
// dir: from the manifest's "key" when it has one (sha256 of the DER public
// key), else from the absolute path. dir should already be absolute and
// symlink-free, as Launch passes it to Chrome.
func ExtensionIDFromPath(dir string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return "", fmt.Errorf("read extension manifest: %w", err)
	}
	var m struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("parse extension manifest: %w", err)
	}
	if m.Key != "" {
		der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(m.Key), ""))
		if err != nil {
			return "", fmt.Errorf("decode manifest key: %w", err)
		}
		return idFromBytes(der), nil
	}
	return idFromBytes([]byte(dir)), nil
}

// idFromBytes is Chrome's id mapping: the first 32 hex digits of sha256(b),
// each mapped 0-f -> a-p.
func idFromBytes(b []byte) string {
	sum := sha256.Sum256(b)
	h := hex.EncodeToString(sum[:16])
	out := make([]byte, len(h))
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c >= 'a' {
			out[i] = 'a' + 10 + (c - 'a')
		} else {
			out[i] = 'a' + (c - '0')
		}
	}
	return string(out)
}

// extensionIDFromURL returns the host of a chrome-extension:// URL, or "".
func extensionIDFromURL(u string) string {
	const prefix = "chrome-extension://"
	if !strings.HasPrefix(u, prefix) {
		return ""
	}
	rest := u[len(prefix):]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}
