package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestClickCoveredByModal: mm_click on a button a modal covers answers
// MM_TARGET_COVERED naming the modal and its close button, long before its
// 15 s timeoutMs (which would answer MM_CLICK_FAILED); once the modal is
// closed through that button, the same click succeeds.
func TestClickCoveredByModal(t *testing.T) {
	h, _ := walletHost(t)
	launch(t, h, map[string]any{"stateMode": "default"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>covered</title>
<button data-testid="go" onclick="document.getElementById('out').textContent = 'clicked'">Go</button><p id="out">not yet</p>
<div class="mm-modal multichain-account-menu-popover" data-testid="account-menu" style="position:fixed;inset:0">
 <div class="mm-modal-overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>
 <section role="dialog" style="position:fixed;right:0;top:0;width:200px;height:60px;background:#fff">
  <button data-testid="account-menu-close" onclick="this.closest('.mm-modal').remove()">Close</button>
 </section>
</div>`))
	}))
	t.Cleanup(srv.Close)
	must(t, h.Call("mm_navigate", map[string]any{"screen": "url", "url": srv.URL}))

	env := h.Call("mm_click", map[string]any{"testId": "go", "timeoutMs": 15000})
	wantCode(t, env, "MM_TARGET_COVERED")
	for _, w := range []string{"MetaMask's account menu", `data-testid="account-menu"`, `mm_click {"testId": "account-menu-close"}`} {
		if !strings.Contains(env.Error.Message, w) {
			t.Errorf("message lacks %q: %s", w, env.Error.Message)
		}
	}
	must(t, h.Call("mm_click", map[string]any{"testId": "account-menu-close"}))
	must(t, h.Call("mm_click", map[string]any{"testId": "go"}))
	var out struct{ Text string }
	must(t, h.Call("mm_get_text", map[string]any{"selector": "#out"})).Decode(t, &out)
	if out.Text != "clicked" {
		t.Errorf("after the modal closed the click did not land: %q", out.Text)
	}
	must(t, h.Call("mm_cleanup", map[string]any{}))
}
