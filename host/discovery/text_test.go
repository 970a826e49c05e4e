package discovery

import (
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

const textPage = `<div data-testid="result">Signed: <span>0xabc</span><span style="display:none">HIDDEN-A</span><span style="visibility:hidden">HIDDEN-B</span>
  <p>second   line</p></div>
<div id="long">` + "0123456789abcdefghij" + `</div>
<input data-testid="name" value="alice">
<input data-testid="pw" type="password" value="hunter2 hunter2">
<div id="srp">abandon ability able about above absent absorb abstract absurd abuse access accident</div>
<div id="gone" style="display:none">nothing</div>`

func TestTextVisibleOnly(t *testing.T) {
	p := openHTML(t, textPage)
	res, err := Text(ctxT(t, 5*time.Second), p, nil, Target{TestID: "result"}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, "HIDDEN") {
		t.Errorf("hidden text read: %q", res.Text)
	}
	if !strings.Contains(res.Text, "Signed: 0xabc") || !strings.Contains(res.Text, "second line") || res.Truncated {
		t.Errorf("text %+v", res)
	}
	if res.Target != `[data-testid="result"]` {
		t.Errorf("target %q", res.Target)
	}
	field, err := Text(ctxT(t, 5*time.Second), p, nil, Target{TestID: "name"}, 1000)
	if err != nil || field.Text != "alice" {
		t.Errorf("field value %+v %v", field, err)
	}
}

func TestTextMaxChars(t *testing.T) {
	p := openHTML(t, textPage)
	res, err := Text(ctxT(t, 5*time.Second), p, nil, Target{Selector: "#long"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "01234" || !res.Truncated || res.Length != 20 {
		t.Errorf("truncated read %+v", res)
	}
	res, err = Text(ctxT(t, 5*time.Second), p, nil, Target{Selector: "#long"}, 20)
	if err != nil || res.Truncated || res.Text != "0123456789abcdefghij" {
		t.Errorf("whole read %+v %v", res, err)
	}
}

func TestTextRedacts(t *testing.T) {
	p := openHTML(t, textPage)
	res, err := Text(ctxT(t, 5*time.Second), p, nil, Target{Selector: "#srp"}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, "abandon") || !res.Redacted {
		t.Errorf("a phrase was read out: %+v", res)
	}
	res, err = Text(ctxT(t, 5*time.Second), p, nil, Target{TestID: "pw"}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, "hunter2") || !res.Redacted {
		t.Errorf("a password was read out: %+v", res)
	}
}

func TestTextBadInput(t *testing.T) {
	p := openHTML(t, textPage)
	_, err := Text(ctxT(t, 5*time.Second), p, nil, Target{}, 10)
	wantCode(t, err, sdk.CodeInvalidInput, "exactly one")
	_, err = Text(ctxT(t, 5*time.Second), p, nil, Target{TestID: "result", Selector: "#long"}, 10)
	wantCode(t, err, sdk.CodeInvalidInput, "exactly one")
	_, err = Text(ctxT(t, 5*time.Second), p, nil, Target{TestID: "result"}, 0)
	wantCode(t, err, sdk.CodeInvalidInput, "maxChars")
	_, err = Text(ctxT(t, 5*time.Second), p, nil, Target{Selector: "a[["}, 10)
	wantCode(t, err, sdk.CodeInvalidInput, "not valid CSS")
	_, err = Text(ctxT(t, 300*time.Millisecond), p, nil, Target{Selector: "#gone"}, 10)
	wantCode(t, err, sdk.CodeTargetNotFound, "not visible")
	_, err = Text(ctxT(t, 300*time.Millisecond), p, nil, Target{Selector: "#absent"}, 10)
	wantCode(t, err, sdk.CodeTargetNotFound, "no element matches")
}

// An attached, rendered but empty element (a dapp's result field before
// it fills) has no size: its text is "" now, not MM_TARGET_NOT_FOUND at
// the deadline. A display:none element still is not read.
func TestTextEmptyElement(t *testing.T) {
	p := openHTML(t, `<div id="result"></div><span data-testid="sig"></span><input id="amount" style="width:0;height:0;border:0;padding:0" value="">
<div id="none" style="display:none"></div>`)
	for _, target := range []Target{{Selector: "#result"}, {TestID: "sig"}, {Selector: "#amount"}} {
		res, err := Text(ctxT(t, 5*time.Second), p, nil, target, 100)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if res.Text != "" || res.Length != 0 || res.Truncated {
			t.Errorf("%s: %+v", target, res)
		}
	}
	_, err := Text(ctxT(t, 300*time.Millisecond), p, nil, Target{Selector: "#none"}, 10)
	wantCode(t, err, sdk.CodeTargetNotFound, "not visible")
}
