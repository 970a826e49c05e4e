package freeport

import (
	"fmt"
	"net"
	"testing"
)

// TestLoopbackBelowEphemeral: the ports are distinct, free, and out of the
// range the kernel hands out to ":0" listeners and outbound connections.
func TestLoopbackBelowEphemeral(t *testing.T) {
	low := ephemeralLow()
	seen := map[int]bool{}
	for range 25 {
		ports, err := Loopback(2)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			if seen[p] {
				t.Fatalf("port %d handed out twice", p)
			}
			seen[p] = true
			if low > floor+1000 && (p < floor || p >= low) {
				t.Fatalf("port %d outside [%d, %d)", p, floor, low)
			}
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				t.Fatalf("port %d is not free: %v", p, err)
			}
			l.Close()
		}
	}
}

// TestLoopbackSkipsBusy: a port something listens on is never handed out.
func TestLoopbackSkipsBusy(t *testing.T) {
	var busy []net.Listener
	defer func() {
		for _, l := range busy {
			l.Close()
		}
	}()
	held := map[int]bool{}
	for p := floor; p < floor+200; p++ {
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			busy = append(busy, l)
			held[p] = true
		}
	}
	for range 200 {
		ports, err := Loopback(1)
		if err != nil {
			t.Fatal(err)
		}
		if held[ports[0]] {
			t.Fatalf("busy port %d handed out", ports[0])
		}
	}
}
