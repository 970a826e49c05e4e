package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mmcp-dev/mmcp/host/knowledge"
)

const (
	e2eSRP      = "spread raise short crane omit tent fringe mandate neglect detail suspect cradle"
	e2ePassword = "correct horse battery staple"
)

// TestOnboardingNoSecrets completes onboarding by importing the SRP, typing
// words and passwords through every target kind, then checks that neither
// the password nor the SRP reached the artifacts or the log, and that every
// record written is a valid StepRecord.
func TestOnboardingNoSecrets(t *testing.T) {
	h, ws := walletHost(t, "--log-level", "debug")
	res := launch(t, h, map[string]any{"stateMode": "onboarding", "flowTags": []string{"onboarding"}, "goal": "import the E2E SRP"})
	if got := res["state"].(map[string]any)["currentScreen"]; got != "onboarding-welcome" {
		t.Fatalf("screen %v", got)
	}
	must(t, h.Call("mm_click", map[string]any{"testId": "onboarding-terms-checkbox"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "onboarding-import-wallet"}))
	// MetaMask's flow: metametrics before the SRP, pin-extension after
	// completion.
	must(t, h.Call("mm_click", map[string]any{"testId": "metametrics-no-thanks"}))
	must(t, h.Call("mm_wait_for", map[string]any{"testId": "import-srp__srp-word-0"}))
	words := strings.Fields(e2eSRP)
	var boxes []string
	for _, n := range snapshot(t, h) {
		if n.Role == "textbox" {
			boxes = append(boxes, n.Ref)
		}
	}
	if len(boxes) < 12 {
		t.Fatalf("%d textboxes on the import screen", len(boxes))
	}
	for i, w := range words {
		var target map[string]any
		switch {
		case i < 4:
			target = map[string]any{"testId": "import-srp__srp-word-" + itoa(i)}
		case i < 8:
			target = map[string]any{"selector": "#srp-" + itoa(i)}
		default:
			target = map[string]any{"a11yRef": boxes[i]}
		}
		target["text"] = w
		must(t, h.Call("mm_type", target))
	}
	must(t, h.Call("mm_click", map[string]any{"testId": "import-srp-confirm"}))
	must(t, h.Call("mm_wait_for", map[string]any{"testId": "create-password-new"}))
	must(t, h.Call("mm_type", map[string]any{"testId": "create-password-new", "text": e2ePassword}))
	for _, n := range snapshot(t, h) {
		if n.Role == "textbox" && strings.Contains(strings.ToLower(n.Name), "confirm") {
			must(t, h.Call("mm_type", map[string]any{"a11yRef": n.Ref, "text": e2ePassword}))
		}
	}
	must(t, h.Call("mm_click", map[string]any{"testId": "create-password-terms"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "create-password-import"}))
	must(t, h.Call("mm_wait_for", map[string]any{"testId": "onboarding-complete-done", "timeoutMs": 20000}))
	must(t, h.Call("mm_click", map[string]any{"testId": "onboarding-complete-done"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "pin-extension-next"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "pin-extension-done"}))
	must(t, h.Call("mm_wait_for", map[string]any{"testId": "account-menu-icon", "timeoutMs": 20000}))
	st := getState(t, h)
	if st.CurrentScreen != "home" || !st.IsUnlocked {
		t.Fatalf("after onboarding: %+v", st)
	}
	// A call that fails validation or has two targets must not leak either.
	wantCode(t, h.Call("mm_type", map[string]any{"testId": "create-password-new", "selector": "#x", "text": e2eSRP}), "MM_INVALID_INPUT")
	wantCode(t, h.Call("mm_type", map[string]any{"testId": "create-password-new", "bogus": true, "text": e2eSRP}), "MM_INVALID_INPUT")
	// The clipboard path of SRP entry, too.
	must(t, h.Call("mm_clipboard", map[string]any{"action": "write", "text": e2eSRP}))
	must(t, h.Call("mm_cleanup", map[string]any{}))
	h.Close()

	secrets := []string{e2eSRP, e2ePassword}
	for i := 0; i+1 < len(words); i++ {
		secrets = append(secrets, words[i]+" "+words[i+1], words[i]+`","`+words[i+1])
	}
	check := func(where, content string) {
		for _, s := range secrets {
			if strings.Contains(content, s) {
				t.Errorf("secret %q found in %s", s, where)
			}
		}
	}
	check("the log", h.Stderr.String())
	records := 0
	err := filepath.WalkDir(filepath.Join(ws, "test-artifacts"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		check(p, string(b))
		if strings.Contains(p, string(filepath.Separator)+"steps"+string(filepath.Separator)) {
			records++
			if err := knowledge.ValidateRecord(b); err != nil {
				t.Errorf("%s is not a valid StepRecord: %v", p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if records < 20 {
		t.Fatalf("only %d step records written", records)
	}
	// The individual words typed must not be in any record either.
	for _, w := range []string{"mandate", "suspect", "cradle", "fringe"} {
		filepath.WalkDir(filepath.Join(ws, "test-artifacts"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), `"`+w+`"`) {
					t.Errorf("SRP word %q stored in %s", w, p)
				}
			}
			return nil
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
