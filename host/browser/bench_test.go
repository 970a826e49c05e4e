package browser

import (
	"context"
	"testing"
	"time"
)

// BenchmarkLaunchToReady measures Launch (Chrome start to the extension
// home page loaded) plus Close.
func BenchmarkLaunchToReady(b *testing.B) {
	if _, err := FindChrome(""); err != nil {
		b.Skip("no chrome:", err)
	}
	ext := testExt(b)
	var launch time.Duration
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		start := time.Now()
		s, err := Launch(ctx, Options{Pages: testPages, ExtensionPath: ext, Headless: true, ArtifactsDir: b.TempDir()})
		launch += time.Since(start)
		if err != nil {
			cancel()
			b.Fatal(err)
		}
		if err := s.Close(ctx); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.ReportMetric(float64(launch.Milliseconds())/float64(b.N), "launch-ms/op")
}

// BenchmarkScreenshot measures a viewport screenshot of the home page.
func BenchmarkScreenshot(b *testing.B) {
	s := launchTest(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Screenshot(ctx, ScreenshotOptions{Name: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}
