package discovery

import (
	"testing"
	"time"
)

// TestLabelsOfMatchesChrome: labelsOf, the walk's index of labels, gives
// every field the labels Chrome's el.labels gives it, in the same order:
// labels by for= (several, one pointing at a later duplicate id, one at an
// element that cannot be labelled), wrapping labels (the first field
// inside only, a hidden input skipped), a label with for= around another
// field, fields in an open shadow root and labels outside it.
func TestLabelsOfMatchesChrome(t *testing.T) {
	p := openHTML(t, `
<input id="a"><label for="a">A1</label><label for="a">A2 <b>b</b></label>
<label>W <input type="hidden"><input id="w1"><input id="w2"></label>
<label for="f">F <input id="inner"></label><input id="f">
<input id="dup"><input id="dup"><label for="dup">D</label>
<label for="div">nothing</label><div id="div"></div>
<label>S <select><option>1</option></select></label><textarea id="t"></textarea><label for="t">T</label>
<label><label>nested <input id="n"></label></label>
<input id="orphan">
<div id="host"></div><label for="inshadow">outside</label>
<script>
const root = document.getElementById('host').attachShadow({ mode: 'open' });
root.innerHTML = '<input id="inshadow"><label for="inshadow">inside</label><label>wrap <input id="s2"></label>';
</script>`)
	ctx := ctxT(t, 10*time.Second)
	var bad []string
	err := Eval(ctx, p, `(() => {
`+jsLib+`
const fields = [...document.querySelectorAll('input, select, textarea'), ...document.getElementById('host').shadowRoot.querySelectorAll('input')];
const bad = [];
let labelled = 0;
for (const el of fields) {
  const want = el.labels ? Array.from(el.labels) : [];
  const got = labelsOf(el);
  if (want.length) labelled++;
  if (want.length !== got.length || want.some((l, i) => l !== got[i])) {
    bad.push((el.id || el.localName) + ': want [' + want.map((l) => l.textContent).join('|') + '] got [' + got.map((l) => l.textContent).join('|') + ']');
  }
}
if (labelled < 8) bad.push('only ' + labelled + ' fields have labels: the page is not what the test means');
return bad;
})()`, EvalOptions{}, &bad)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}
