//go:build !unix

package proc

// alive is always true where liveness is not checked: nothing is removed.
func alive(int) bool { return true }
