package visual

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mmcp-dev/mmcp/sdk"
)

func codeOf(t *testing.T, err error) string {
	t.Helper()
	var e *sdk.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want an *sdk.Error", err)
	}
	return e.Code
}

// A last.json shipped in a checkout's test-artifacts names any source
// and any target: approve must copy only the screenshot mmcp keeps in
// the artifacts folder, into the baseline folder, by the check's name.
func TestApproveIgnoresPathsInLastResult(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: filepath.Join(dir, "baselines"), Work: filepath.Join(dir, "work")}
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("private key material"), 0o600); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "elsewhere", "pwned")
	if err := os.MkdirAll(st.Work, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"screenshot": secret, "baseline": target})
	if err := os.WriteFile(filepath.Join(st.Work, "home.last.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Approve("home"); err == nil {
		t.Fatal("approve of a foreign last.json succeeded")
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("approve wrote the target named in last.json: %v", err)
	}
	// A relative baseline resolves against nothing: still refused.
	b, _ = json.Marshal(map[string]string{"screenshot": secret, "baseline": "pwned.png"})
	_ = os.WriteFile(filepath.Join(st.Work, "home.last.json"), b, 0o644)
	if _, err := st.Approve("home"); err == nil {
		t.Fatal("approve with a relative baseline succeeded")
	}

	// The kept screenshot linked to a file outside: refused too.
	key := Key{Name: "home", Browser: "chrome1", Platform: "linux", Width: 100, Height: 60, Scale: 1}
	if _, err := st.Check(CheckInput{Key: key, Shot: pngOf(t, screen()), Options: DefaultOptions()}); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(st.Work, "home.png")
	_ = os.Remove(shot)
	if err := os.Symlink(secret, shot); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Approve("home"); err == nil {
		t.Fatal("approve followed a linked screenshot")
	}
	got, _ := os.ReadFile(filepath.Join(st.Dir, key.File()))
	if bytes.Contains(got, []byte("private")) {
		t.Fatal("the baseline holds the linked file")
	}

}

func TestApproveWritesKeptShotByName(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: filepath.Join(dir, "baselines"), Work: filepath.Join(dir, "work")}
	key := Key{Name: "home", Browser: "chrome1", Platform: "linux", Width: 100, Height: 60, Scale: 1}
	if _, err := st.Check(CheckInput{Key: key, Shot: pngOf(t, screen()), Options: DefaultOptions()}); err != nil {
		t.Fatal(err)
	}
	white100 := pngOf(t, canvas(100, 60, white))
	if out, err := st.Check(CheckInput{Key: key, Shot: white100, Options: DefaultOptions()}); err != nil || out.Status != StatusChanged {
		t.Fatalf("changed: %+v %v", out, err)
	}
	path, err := st.Approve("home")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(st.Dir, key.File()) {
		t.Fatalf("approved into %s", path)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, white100) {
		t.Fatal("the baseline is not the last screenshot")
	}
}

// A baseline that is a symbolic link is neither followed nor replaced:
// a dangling link creates nothing outside the folder, a linked file
// keeps its content, even with update: true.
func TestBaselineSymlinkNotFollowed(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: filepath.Join(dir, "baselines"), Work: filepath.Join(dir, "work")}
	if err := os.MkdirAll(st.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	key := Key{Name: "home", Browser: "chrome1", Platform: "linux", Width: 100, Height: 60, Scale: 1}
	outside := filepath.Join(dir, "outside.png")
	if err := os.Symlink(outside, filepath.Join(st.Dir, key.File())); err != nil {
		t.Fatal(err)
	}
	_, err := st.Check(CheckInput{Key: key, Shot: pngOf(t, screen()), Options: DefaultOptions()})
	if codeOf(t, err) != sdk.CodeBaselineInvalid {
		t.Fatalf("dangling link: %v", err)
	}
	if _, err := os.Lstat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file was created through the dangling link: %v", err)
	}

	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("my notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(st.Dir, key.File())
	_ = os.Remove(link)
	if err := os.Symlink(notes, link); err != nil {
		t.Fatal(err)
	}
	for _, update := range []bool{false, true} {
		_, err = st.Check(CheckInput{Key: key, Shot: pngOf(t, screen()), Options: DefaultOptions(), Update: update})
		if codeOf(t, err) != sdk.CodeBaselineInvalid {
			t.Fatalf("linked baseline, update %v: %v", update, err)
		}
	}
	// approve onto a link: a result exists, then the baseline is linked
	_ = os.Remove(link)
	if _, err := st.Check(CheckInput{Key: key, Shot: pngOf(t, screen()), Options: DefaultOptions()}); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(link)
	if err := os.Symlink(notes, link); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Approve("home"); codeOf(t, err) != sdk.CodeBaselineInvalid {
		t.Fatalf("approve onto a link: %v", err)
	}
	if got, _ := os.ReadFile(notes); string(got) != "my notes" {
		t.Fatalf("the linked file was overwritten: %q", got)
	}
}

// hugePNG is a valid 1-bit grey PNG of w x h, all black: a few KiB on
// disk that decode to w*h*4 bytes of RGBA.
func hugePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&buf, binary.BigEndian, uint32(len(data)))
		c := crc32.NewIEEE()
		c.Write([]byte(typ))
		c.Write(data)
		buf.WriteString(typ)
		buf.Write(data)
		_ = binary.Write(&buf, binary.BigEndian, c.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 1, 0 // bit depth 1, greyscale
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	bw := bufio.NewWriter(zw)
	row := make([]byte, 1+(w+7)/8)
	for y := 0; y < h; y++ {
		bw.Write(row)
	}
	bw.Flush()
	zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return buf.Bytes()
}

// A small file that claims a huge image is answered from its header:
// MM_BASELINE_SIZE_MISMATCH without decoding it.
func TestHugeBaselineSizeFromHeader(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: dir, Work: filepath.Join(dir, "work")}
	key := Key{Name: "big", Browser: "chrome1", Platform: "linux", Width: 100, Height: 60, Scale: 1}
	huge := hugePNG(t, 16000, 16000)
	if err := os.WriteFile(filepath.Join(dir, key.File()), huge, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := pngOf(t, screen())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := st.Check(CheckInput{Key: key, Shot: shot, Options: DefaultOptions()})
	runtime.ReadMemStats(&after)
	if codeOf(t, err) != sdk.CodeBaselineSizeMismatch {
		t.Fatalf("huge baseline: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Fatalf("the check allocated %d MiB for a %d KiB baseline: it decoded the image before checking its size", got>>20, len(huge)>>10)
	}
}
