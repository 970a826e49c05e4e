package build

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcp-dev/mmcp/sdk"
)

// metamaskWatcher is MetaMask's `yarn start:test` in miniature (its real
// output's shape and timing, scaled down): gulp task lines first while
// dist/chrome is deleted and then holds only the manifest and a few
// assets, labelled sub-builds ("<label>: Bundle start: \"X\"", the end
// sometimes under another label), quiet gaps longer than quietMs inside
// the initial build, the whole output only at "Bundle end: service worker
// app-init.js", live-reload lines. A trigger "ui" rebuilds; "bad" prints
// a SyntaxError behind a label, then its code frame, stack and an object
// dump, and writes nothing; the watcher keeps running.
const metamaskWatcher = `out=dist/chrome
gap=${gap:-0.5}
manifest='{"manifest_version":3,"name":"mm","default_locale":"en","background":{"service_worker":"app-init.js"},"content_scripts":[{"js":["scripts/contentscript.js"]}],"action":{"default_popup":"popup.html"},"icons":{"16":"images/icon-16.png"},"web_accessible_resources":[{"resources":["scripts/inpage.js.map"]}]}'
appinit() {
  echo 'Bundle start: "app-init"'
  sleep 0.1
  echo "$1" > $out/app-init.js
  echo 'scripts:core:test-live:standardEntryPoints: Bundle end: "app-init"'
  echo 'Bundle end: service worker app-init.js'
  echo "[20:24:56] $PWD/dist/chrome/app-init.js reloaded."
}
echo 'Running task "testDev"...'
echo "Starting 'testDev'..."
echo "Starting 'clean'..."
rm -rf dist
echo "Finished 'clean'"
sleep $gap
echo "Starting 'styles:dev'..."
echo "Finished 'styles:dev'"
echo "Starting 'scripts:core:test-live:standardEntryPoints'..."
echo "Starting 'scripts:core:test-live:contentscript'..."
echo "Starting 'static:dev'..."
echo "Starting 'manifest:testDev'..."
mkdir -p $out/_locales/en $out/images $out/scripts
echo "$manifest" > $out/manifest.json
echo "Finished 'manifest:testDev'"
echo '{}' > $out/_locales/en/messages.json
echo png > $out/images/icon-16.png
echo libs > $out/bg-libs.js
echo 'scripts:core:test-live:standardEntryPoints: Bundle start: "primary"'
echo "Finished 'static:dev'"
echo 'scripts:core:test-live:contentscript: Bundle start: "contentscript"'
echo cs > $out/scripts/contentscript.js
echo 'scripts:core:test-live:contentscript: Bundle end: "contentscript"'
sleep $gap
echo ui1 > $out/ui-0.js
echo '<script src="ui-0.js"></script>' > $out/popup.html
echo 'scripts:core:test-live:standardEntryPoints: Bundle end: "primary"'
appinit v1
while :; do
  if [ -f trigger ]; then
    t=$(cat trigger); rm trigger
    case $t in
    bad)
      echo "scripts:core:test-live:standardEntryPoints: SyntaxError: $PWD/ui/x.tsx: Unterminated regular expression. (77:10)"
      echo
      echo '  75 |   return ('
      echo '> 77 |     <a href=/x>'
      i=0; while [ $i -lt 60 ]; do echo "    at TypeScriptParserMixin.parse$i ($PWD/node_modules/@babel/parser/lib/index.js:$i:19)"; i=$((i+1)); done
      echo '  code: '"'"'BABEL_PARSE_ERROR'"'"','
      i=0; while [ $i -lt 80 ]; do echo "      field$i: false,"; i=$((i+1)); done
      echo '}'
      ;;
    *)
      echo "scripts:core:test-live:standardEntryPoints: [20:27:19] $PWD/dist/chrome/ui-0.js reloaded."
      echo "$t" > $out/ui-0.js
      echo "[20:27:19] $PWD/dist/firefox/ui-0.js reloaded."
      echo 'scripts:core:test-live:standardEntryPoints: Bundle start: "app-init"'
      sleep 0.1
      echo "$t" > $out/app-init.js
      echo 'Bundle end: "app-init"'
      echo 'Bundle end: service worker app-init.js'
      ;;
    esac
  fi
  sleep 0.02
done
`

// TestWatchMetaMaskReadiness: on MetaMask's watch build the initial build
// counts only once dist/chrome is whole (after "Bundle end: service
// worker app-init.js"): not at the early gulp "Finished '…'" lines, not
// when the folder stays quiet longer than quietMs mid-build, not at the
// first sub-build's end. A rebuild counts once its service worker is
// written.
func TestWatchMetaMaskReadiness(t *testing.T) {
	p, ws := scriptPlugin(t, metamaskWatcher, map[string]any{"quietMs": 300})
	if _, err := p.watchStart(); err != nil {
		t.Fatal(err)
	}
	r, e := waitReady(t, p)
	if e != nil {
		t.Fatalf("initial build: %v", e)
	}
	if r.Seq != 1 || r.BuildID == "" {
		t.Fatalf("initial build %+v", r)
	}
	for _, f := range []string{"app-init.js", "popup.html", "scripts/contentscript.js", "_locales/en/messages.json", "images/icon-16.png"} {
		if _, err := os.Stat(filepath.Join(ws, "dist", "chrome", f)); err != nil {
			t.Errorf("wait_ready answered the initial build while dist/chrome lacks %s", f)
		}
	}

	trigger(t, ws, "ui2")
	r2, e := waitReady(t, p)
	if e != nil || r2.Seq != 2 {
		t.Fatalf("rebuild %+v %v", r2, e)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "dist", "chrome", "app-init.js")); strings.TrimSpace(string(b)) != "ui2" {
		t.Fatalf("wait_ready answered the rebuild before its service worker was written (app-init.js %q)", b)
	}
}

// TestWatchLabelledError: a SyntaxError printed behind a sub-build's
// label answers MM_BUILD_FAILED with the error's first lines at once (not
// a timeout, not the object dump), and the next good save recovers.
func TestWatchLabelledError(t *testing.T) {
	p, ws := scriptPlugin(t, metamaskWatcher, map[string]any{"quietMs": 300})
	t.Setenv("gap", "0.05")
	if _, err := p.watchStart(); err != nil {
		t.Fatal(err)
	}
	if _, e := waitReady(t, p); e != nil {
		t.Fatalf("initial build: %v", e)
	}
	trigger(t, ws, "bad")
	start := time.Now()
	_, e := waitReady(t, p)
	took := time.Since(start)
	if e == nil || e.Code != sdk.CodeBuildFailed {
		t.Fatalf("labelled SyntaxError answered %+v, want MM_BUILD_FAILED", e)
	}
	if !strings.Contains(e.Message, "SyntaxError: "+ws+"/ui/x.tsx: Unterminated regular expression. (77:10)") || strings.Contains(e.Message, "field3") {
		t.Fatalf("message %q: want the error's first lines", e.Message)
	}
	if out, _ := e.Details["output"].(string); !strings.HasPrefix(out, "scripts:core:test-live:standardEntryPoints: SyntaxError:") || strings.Count(out, "\n") >= maxErrorLines {
		t.Fatalf("details.output (%d lines) should start at the error and stay bounded:\n%s", strings.Count(out, "\n")+1, out)
	}
	if took > 5*time.Second {
		t.Fatalf("MM_BUILD_FAILED after %s", took)
	}
	t.Logf("labelled SyntaxError answered in %s", took.Round(time.Millisecond))

	trigger(t, ws, "fixed")
	r, e := waitReady(t, p)
	if e != nil || r.Seq != 3 {
		t.Fatalf("the fix did not recover: %+v %v", r, e)
	}
	if st := mustStatus(t, p); st.State != sdk.WatchReady {
		t.Fatalf("state after the fix %q", st.State)
	}
}
