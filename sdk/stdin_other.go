//go:build !unix

package sdk

import "os"

// nullStdin makes os.Stdin the null device.
func nullStdin() {
	if f, err := os.Open(os.DevNull); err == nil {
		os.Stdin = f
	}
}
