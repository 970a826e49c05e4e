package browser

import "testing"

func TestScreenshotName(t *testing.T) {
	good := map[string]string{
		"home":           "home",
		"after send.png": "after-send",
		"a:b*c":          "a-b-c",
		"v1.2":           "v1.2",
	}
	for in, want := range good {
		if got, err := ScreenshotName(in); err != nil || got != want {
			t.Errorf("ScreenshotName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"../x", "x/../../y", "/etc/passwd", `a\b`, "..", "", "...", "a\x00b"} {
		if got, err := ScreenshotName(bad); err == nil {
			t.Errorf("ScreenshotName(%q) = %q, want refusal", bad, got)
		}
	}
}

func TestExtensionIDFromPathWithoutKey(t *testing.T) {
	// Chrome's id for an unpacked extension without a key hashes its path.
	id, err := ExtensionIDFromPath(testExt(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != 32 {
		t.Fatalf("id %q is not 32 chars", id)
	}
	for _, c := range id {
		if c < 'a' || c > 'p' {
			t.Fatalf("id %q has %q outside a-p", id, c)
		}
	}
	if id != idFromBytes([]byte(testExt(t))) {
		t.Fatal("id is not the path hash")
	}
}
