package launch

import (
	"io"
	"net"
	"strconv"
	"testing"
	"time"
)

// TestGateClose: a request held at a gate that never opens (a launch
// that failed before its fixture server was up) ends when the gate
// closes, and the gate's port takes no more connections.
func TestGateClose(t *testing.T) {
	g, err := openGate()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(g.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("GET /state.json HTTP/1.1\r\nHost: localhost\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(c)
		ended <- err
	}()
	g.Close()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the held request did not end when the gate closed")
	}
	if c2, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(g.Port()), time.Second); err == nil {
		c2.Close()
		t.Fatal("the closed gate still takes connections")
	}
	g.Close() // twice is fine
}
