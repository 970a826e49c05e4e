package browser

import (
	"testing"
)

func TestMetaMaskScreens(t *testing.T) {
	p := MetaMask()
	home := map[string]bool{"account-menu-icon": true}
	tests := map[string]struct {
		url     string
		present map[string]bool
		want    string
	}{
		"unlock route":        {"chrome-extension://x/home.html#/unlock", nil, "unlock"},
		"unlock no slash":     {"chrome-extension://x/home.html#unlock", nil, "unlock"},
		"welcome":             {"chrome-extension://x/home.html#/onboarding/welcome", nil, "onboarding-welcome"},
		"import":              {"chrome-extension://x/home.html#/onboarding/import-with-recovery-phrase", nil, "onboarding-import"},
		"password":            {"chrome-extension://x/home.html#/onboarding/create-password", nil, "onboarding-password"},
		"completion":          {"chrome-extension://x/home.html#/onboarding/completion", nil, "onboarding-complete"},
		"metametrics":         {"chrome-extension://x/home.html#/onboarding/metametrics", nil, "onboarding-metametrics"},
		"settings":            {"chrome-extension://x/home.html#settings", nil, "settings"},
		"settings subpage":    {"chrome-extension://x/home.html#/settings/advanced", home, "settings"},
		"settings query":      {"chrome-extension://x/home.html#settings?tab=1", nil, "settings"},
		"not a prefix word":   {"chrome-extension://x/home.html#/settingsx", nil, "unknown"},
		"home empty route":    {"chrome-extension://x/home.html", home, "home"},
		"home slash":          {"chrome-extension://x/home.html#/", home, "home"},
		"empty, no landmark":  {"chrome-extension://x/home.html", nil, "unknown"},
		"landmark fallback":   {"chrome-extension://x/home.html", map[string]bool{"unlock-password": true}, "unlock"},
		"send keeps header":   {"chrome-extension://x/home.html#/send", home, "unknown"},
		"unknown with unlock": {"chrome-extension://x/home.html#/whatever", map[string]bool{"unlock-password": true}, "unlock"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := p.Screen(tc.url, tc.present); got != tc.want {
				t.Fatalf("Screen(%q) = %q, want %q", tc.url, got, tc.want)
			}
		})
	}
}

func TestProfileScreenIsAlwaysKnown(t *testing.T) {
	p := MetaMask()
	p.Routes = append([]Route{{"/custom", "not-a-screen"}}, p.Routes...)
	if got := p.Screen("chrome-extension://x/home.html#/custom", nil); got != "unknown" {
		t.Fatalf("a screen outside observation.Screens leaked: %q", got)
	}
}

func TestParseChainID(t *testing.T) {
	for in, want := range map[string]int64{"0x539": 1337, "1337": 1337, " 0X1 ": 1} {
		if got, ok := parseChainID(in); !ok || got != want {
			t.Errorf("parseChainID(%q) = %d %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "eth", "0xzz"} {
		if _, ok := parseChainID(in); ok {
			t.Errorf("parseChainID(%q) accepted", in)
		}
	}
}

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
