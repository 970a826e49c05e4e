package browser

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmcp-dev/mmcp/internal/testutil"
	"github.com/mmcp-dev/mmcp/sdk"
)

func pngSize(t *testing.T, data []byte) (int, int) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	return cfg.Width, cfg.Height
}

func TestScreenshot(t *testing.T) {
	s := launchTest(t)
	ctx := tctx(t)
	srv := dappServer(t)
	if _, err := s.Navigate(ctx, ScreenURL, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}

	view, err := s.Screenshot(ctx, ScreenshotOptions{Name: "dapp view", IncludeBase64: true})
	if err != nil {
		t.Fatal(err)
	}
	if view.Path != filepath.Join(s.opts.ArtifactsDir, "screenshots", "dapp-view.png") {
		t.Fatalf("path %s", view.Path)
	}
	data, err := os.ReadFile(view.Path)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := pngSize(t, data); w != view.Width || h != view.Height || w != DefaultViewport.Width || h != DefaultViewport.Height {
		t.Fatalf("file is %dx%d, result says %dx%d", w, h, view.Width, view.Height)
	}
	if b, _ := base64.StdEncoding.DecodeString(view.Base64); !bytes.Equal(b, data) {
		t.Fatal("base64 differs from the file")
	}

	full, err := s.Screenshot(ctx, ScreenshotOptions{Name: "dapp-full.png", FullPage: true})
	if err != nil {
		t.Fatal(err)
	}
	if full.Base64 != "" {
		t.Fatal("base64 returned without being asked")
	}
	data, _ = os.ReadFile(full.Path)
	if w, h := pngSize(t, data); w != full.Width || h != full.Height || h < 3000 || h <= view.Height {
		t.Fatalf("full page %dx%d (result %dx%d), viewport height %d", w, h, full.Width, full.Height, view.Height)
	}

	el, err := s.Screenshot(ctx, ScreenshotOptions{Name: "button", Selector: `[data-testid="open-popup"]`})
	if err != nil {
		t.Fatal(err)
	}
	if el.Width >= view.Width || el.Height >= 100 || el.Width == 0 {
		t.Fatalf("element shot %dx%d is not the button", el.Width, el.Height)
	}
	_, err = s.Screenshot(ctx, ScreenshotOptions{Name: "none", Selector: "#missing"})
	testutil.WantCode(t, err, sdk.CodeTargetNotFound)

	for _, bad := range []string{"../escape", "a/b", `..\x`, "..", ""} {
		_, err := s.Screenshot(ctx, ScreenshotOptions{Name: bad})
		testutil.WantCode(t, err, sdk.CodeInvalidInput)
	}
	if _, err := os.Stat(filepath.Join(s.opts.ArtifactsDir, "escape.png")); !os.IsNotExist(err) {
		t.Fatal("a traversal name wrote outside screenshots/")
	}
}

func TestClipboardRoundTrip(t *testing.T) {
	s := launchTest(t)
	ctx := tctx(t)
	const srp = "spread raise short crane omit tent fringe mandate neglect detail suspect cradle"
	w, err := s.Clipboard(ctx, ClipboardWrite, srp)
	if err != nil {
		t.Fatal(err)
	}
	if !w.Success || w.Action != ClipboardWrite || w.Text != nil {
		t.Fatalf("write result %+v", w)
	}
	r, err := s.Clipboard(ctx, ClipboardRead, "")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Success || r.Text == nil || *r.Text != srp {
		t.Fatalf("read result %+v", r)
	}

	// On a dapp page too (its origin is granted on first use).
	srv := dappServer(t)
	if _, err := s.Navigate(ctx, ScreenURL, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Clipboard(ctx, ClipboardWrite, "from the dapp"); err != nil {
		t.Fatal(err)
	}
	if r, err = s.Clipboard(ctx, ClipboardRead, ""); err != nil || r.Text == nil || *r.Text != "from the dapp" {
		t.Fatalf("dapp read %+v %v", r, err)
	}
	_, err = s.Clipboard(ctx, "paste", "")
	testutil.WantCode(t, err, sdk.CodeInvalidInput)
}
