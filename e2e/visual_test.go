package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mmcp-dev/mmcp/host/knowledge"
)

// visualOut is mm_visual_check's result.
type visualOut struct {
	Status     string  `json:"status"`
	DiffPixels int     `json:"diffPixels"`
	DiffRatio  float64 `json:"diffRatio"`
	Regions    []struct {
		X, Y, Width, Height int
		TestIDs             []string `json:"testIds"`
		Elements            []struct {
			Role, Name, TestID, A11yRef string
		} `json:"elements"`
	} `json:"regions"`
	BaselinePath   string `json:"baselinePath"`
	ScreenshotPath string `json:"screenshotPath"`
	DiffPath       string `json:"diffPath"`
}

func visualCheck(t testing.TB, h *Host, args map[string]any) visualOut {
	t.Helper()
	var out visualOut
	must(t, h.Call("mm_visual_check", args)).Decode(t, &out)
	return out
}

// regionTestIDs lists every testId named under the regions.
func (v visualOut) regionTestIDs() []string {
	var ids []string
	for _, r := range v.Regions {
		ids = append(ids, r.TestIDs...)
		for _, e := range r.Elements {
			if e.TestID != "" {
				ids = append(ids, e.TestID)
			}
		}
	}
	return ids
}

// TestVisualCheck: a baseline is created in the workspace, the same screen
// matches with 0 px, another screen is changed with regions naming its
// testIds, masking the change matches, a button recoloured by one step in
// the page is changed (threshold 0) and named, includeImage returns the
// diff image, `mmcp visual approve` promotes the last screenshot, and bad
// names and corrupt baselines answer their codes.
func TestVisualCheck(t *testing.T) {
	h, ws := walletHost(t)
	launch(t, h, map[string]any{})

	first := visualCheck(t, h, map[string]any{"name": "home"})
	if first.Status != "baseline-created" || !strings.HasPrefix(first.BaselinePath, filepath.Join(ws, "test", "visual-baselines")+string(filepath.Separator)) {
		t.Fatalf("first check: %+v", first)
	}
	if !strings.Contains(filepath.Base(first.BaselinePath), "home--") || !strings.Contains(first.BaselinePath, "-1280x720@1x.png") {
		t.Fatalf("baseline name %s does not say the browser, platform, viewport and scale", first.BaselinePath)
	}
	if again := visualCheck(t, h, map[string]any{"name": "home"}); again.Status != "match" || again.DiffPixels != 0 {
		t.Fatalf("home checked twice: %+v", again)
	}

	must(t, h.Call("mm_navigate", map[string]any{"screen": "settings"}))
	settings := visualCheck(t, h, map[string]any{"name": "home"})
	if settings.Status != "changed" || settings.DiffPixels == 0 || len(settings.Regions) == 0 || settings.DiffPath == "" {
		t.Fatalf("settings against home: %+v", settings)
	}
	t.Logf("settings against home: %d px (%.3f), regions %+v", settings.DiffPixels, settings.DiffRatio, settings.Regions)
	if len(settings.regionTestIDs()) == 0 {
		t.Fatalf("no region names a testId: %+v", settings.Regions)
	}
	if masked := visualCheck(t, h, map[string]any{"name": "home", "mask": []any{map[string]any{"selector": "#app"}}}); masked.Status != "match" {
		t.Fatalf("changed area masked: %+v", masked)
	}

	must(t, h.Call("mm_navigate", map[string]any{"screen": "home"}))
	if back := visualCheck(t, h, map[string]any{"name": "home"}); back.Status != "match" || back.DiffPixels != 0 {
		t.Fatalf("home again: %+v", back)
	}
	// One value step on the Send button's background, changed in the page.
	// rod emulates its default device on the pages it opens unless told not to.
	br := bareCDP(t, ws).NoDefaultDevice()
	page := pageAt(t, br, "chrome-extension://")
	page.MustEval(`() => {
  const b = document.querySelector('[data-testid="eth-overview-send"]');
  const [r, g, bl] = getComputedStyle(b).backgroundColor.match(/\d+/g).map(Number);
  b.style.backgroundColor = 'rgb(' + r + ',' + g + ',' + (bl < 255 ? bl + 1 : bl - 1) + ')';
}`)
	if loose := visualCheck(t, h, map[string]any{"name": "home"}); loose.Status != "match" {
		t.Fatalf("one step under the default threshold: %+v", loose)
	}
	step := visualCheck(t, h, map[string]any{"name": "home", "threshold": 0, "includeImage": true})
	t.Logf("one step on Send: %d px, regions %+v", step.DiffPixels, step.Regions)
	if step.Status != "changed" || !slices.Contains(step.regionTestIDs(), "eth-overview-send") {
		t.Fatalf("one step on the Send button, threshold 0: %+v", step)
	}
	env := h.Call("mm_visual_check", map[string]any{"name": "home", "threshold": 0, "includeImage": true})
	if img, ok := env.Raw.Content[len(env.Raw.Content)-1].(mcp.ImageContent); !ok || img.MIMEType != "image/png" || img.Data == "" {
		t.Fatalf("includeImage: no PNG image content in %d contents", len(env.Raw.Content))
	}

	// approve promotes the recoloured screen
	cmd := exec.Command(filepath.Join(bin, "mmcp"), "--repo", ws, "visual", "approve", "home")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), first.BaselinePath) {
		t.Fatalf("mmcp visual approve: %v: %s", err, out)
	}
	if after := visualCheck(t, h, map[string]any{"name": "home", "threshold": 0}); after.Status != "match" {
		t.Fatalf("after approve: %+v", after)
	}

	// The knowledge store answers which checks changed in this session.
	var found struct {
		Matches []struct {
			Tool          string   `json:"tool"`
			MatchedFields []string `json:"matchedFields"`
		} `json:"matches"`
	}
	must(t, h.Call("mm_knowledge_search", map[string]any{"query": "visual:changed", "scope": "current"})).Decode(t, &found)
	if len(found.Matches) == 0 || found.Matches[0].Tool != "mm_visual_check" || !slices.Contains(found.Matches[0].MatchedFields, "label:visual:changed:home") {
		t.Fatalf("knowledge search for changed checks: %+v", found.Matches)
	}
	// The records keep the outcome as labels and the kept screenshot,
	// never the images, and match the spec's StepRecord v1 schema.
	recs, _ := filepath.Glob(filepath.Join(ws, "test-artifacts", "llm-knowledge", "*", "steps", "*mm_visual_check.json"))
	changedRecs := 0
	for _, p := range recs {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "iVBOR") {
			t.Fatalf("record %s holds a PNG", p)
		}
		if err := knowledge.ValidateRecord(b); err != nil {
			t.Fatalf("record %s: %v", p, err)
		}
		var rec struct {
			Labels    []string `json:"labels"`
			Artifacts struct {
				Screenshot struct {
					Path string `json:"path"`
				} `json:"screenshot"`
			} `json:"artifacts"`
		}
		if err := jsonUnmarshal(b, &rec); err != nil {
			t.Fatalf("record %s: %v", p, err)
		}
		if slices.Contains(rec.Labels, "visual:changed:home") && slices.Contains(rec.Labels, "visual-region:eth-overview-send") &&
			filepath.Base(rec.Artifacts.Screenshot.Path) == "home.png" {
			changedRecs++
		}
	}
	if changedRecs == 0 {
		t.Fatalf("no record of %d keeps the changed outcome with its regions' testIds", len(recs))
	}

	wantCode(t, h.Call("mm_visual_check", map[string]any{"name": "../escape"}), "MM_INVALID_INPUT")
	wantCode(t, h.Call("mm_visual_check", map[string]any{"name": "x", "mask": []any{map[string]any{"testId": "no-such-thing"}}}), "MM_TARGET_NOT_FOUND")
	if err := os.WriteFile(first.BaselinePath, []byte("not a png"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode(t, h.Call("mm_visual_check", map[string]any{"name": "home"}), "MM_BASELINE_INVALID")
	if upd := visualCheck(t, h, map[string]any{"name": "home", "update": true}); upd.Status != "baseline-updated" {
		t.Fatalf("update over a corrupt baseline: %+v", upd)
	}
	// an element scope
	el := visualCheck(t, h, map[string]any{"name": "send-button", "testId": "eth-overview-send"})
	if el.Status != "baseline-created" {
		t.Fatalf("element scope: %+v", el)
	}
}

// TestVisualSteady: two checks in a row with no change in the page diff to
// 0 px on the test wallet's screens and on a dapp page.
func TestVisualSteady(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{})
	dapp := dappServer(t)
	screens := []struct {
		name string
		nav  map[string]any
	}{
		{"home", map[string]any{"screen": "home"}},
		{"settings", map[string]any{"screen": "settings"}},
		{"dapp", map[string]any{"screen": "url", "url": dapp.URL}},
	}
	for _, s := range screens {
		must(t, h.Call("mm_navigate", s.nav))
		for _, scope := range []string{"viewport", "fullPage"} {
			name := s.name + "-" + scope
			visualCheck(t, h, map[string]any{"name": name, "scope": scope})
			if v := visualCheck(t, h, map[string]any{"name": name, "scope": scope, "threshold": 0}); v.Status != "match" || v.DiffPixels != 0 {
				t.Errorf("%s checked twice: %+v", name, v)
			}
		}
	}
	// the unlock screen, with its focused password field (the caret)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "home"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "global-menu-lock"}))
	must(t, h.Call("mm_wait_for", map[string]any{"testId": "unlock-password"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "unlock-password"}))
	visualCheck(t, h, map[string]any{"name": "unlock"})
	for i := 0; i < 3; i++ {
		if v := visualCheck(t, h, map[string]any{"name": "unlock", "threshold": 0}); v.Status != "match" {
			t.Fatalf("unlock screen, check %d: %+v", i+2, v)
		}
	}
}
