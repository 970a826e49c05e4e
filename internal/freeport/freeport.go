// Package freeport hands out loopback ports for a child process to listen
// on.
//
// The ports are taken below the kernel's ephemeral range. A port the kernel
// hands out (to ":0" listeners, and as the local end of every outbound
// connection, Chrome's many among them) can be taken again between the
// moment it is found free and the child's bind, and the child then fails
// with "address already in use", one launch in many. Below that range only
// a process that names the port takes it.
package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
)

// floor is the lowest port handed out.
const floor = 20000

var (
	mu    sync.Mutex
	given = map[int]bool{} // never handed out twice by one process
)

// Loopback returns n distinct ports nothing listens on at 127.0.0.1 now.
func Loopback(n int) ([]int, error) {
	mu.Lock()
	defer mu.Unlock()
	low := ephemeralLow()
	ports := make([]int, 0, n)
	for len(ports) < n {
		p, err := one(low)
		if err != nil {
			return nil, err
		}
		given[p] = true
		ports = append(ports, p)
	}
	return ports, nil
}

// one finds a port below low, or the kernel's choice when the ephemeral
// range leaves no room below it.
func one(low int) (int, error) {
	if low > floor+1000 {
		for range 200 {
			p := floor + rand.IntN(low-floor)
			if !given[p] && canListen(p) {
				return p, nil
			}
		}
	}
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("find a free port: %w", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !given[p] {
			return p, nil
		}
	}
	return 0, errors.New("find a free port: every port tried was taken")
}

// canListen reports whether a listener can take 127.0.0.1:p now.
func canListen(p int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// default when it cannot be read).
func ephemeralLow() int {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		fmt.Sscan(string(b), &low)
	}
	return low
}
