package launch

import (
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// gate is the port a session's Chrome reads its wallet state at (the
// extension's fixed fixture URL, localhost:12345, is mapped there), open
// before the fixture server is: Chrome starts beside the chain and the
// fixture, and a request that arrives before the fixture server is up is
// held at the gate, then goes through to the server once Open names its
// port. It forwards for the session's life (an in-place reload reads the
// state again). Close ends it and every connection through it.
type gate struct {
	ln net.Listener

	mu     sync.Mutex
	target int           // the fixture server's port, 0 until Open
	opened chan struct{} // closed by Open
	closed chan struct{} // closed by Close
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// gateDial bounds the connection to the fixture server.
const gateDial = 5 * time.Second

// openGate listens on a free loopback port.
func openGate() (*gate, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &gate{ln: ln, opened: make(chan struct{}), closed: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	g.wg.Add(1)
	go g.serve()
	return g, nil
}

// Port is the port the gate listens on.
func (g *gate) Port() int { return g.ln.Addr().(*net.TCPAddr).Port }

// Open forwards every connection, held ones first, to the fixture server
// on port (of 127.0.0.1). Opening again points the gate elsewhere.
func (g *gate) Open(port int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	first := g.target == 0
	g.target = port
	if first {
		close(g.opened)
	}
}

// Close stops listening and ends every connection, held or forwarded.
func (g *gate) Close() {
	g.mu.Lock()
	select {
	case <-g.closed:
		g.mu.Unlock()
		return
	default:
	}
	close(g.closed)
	for c := range g.conns {
		_ = c.Close()
	}
	g.mu.Unlock()
	_ = g.ln.Close()
	g.wg.Wait()
}

func (g *gate) serve() {
	defer g.wg.Done()
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		if !g.track(c) {
			_ = c.Close()
			return
		}
		g.wg.Add(1)
		go g.forward(c)
	}
}

// track keeps c for Close; false once closed.
func (g *gate) track(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.closed:
		return false
	default:
	}
	g.conns[c] = struct{}{}
	return true
}

func (g *gate) untrack(c net.Conn) {
	g.mu.Lock()
	delete(g.conns, c)
	g.mu.Unlock()
	_ = c.Close()
}

// forward holds c until the gate opens, then joins it to the fixture
// server.
func (g *gate) forward(c net.Conn) {
	defer g.wg.Done()
	defer g.untrack(c)
	select {
	case <-g.opened:
	case <-g.closed:
		return
	}
	g.mu.Lock()
	port := g.target
	g.mu.Unlock()
	s, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), gateDial)
	if err != nil {
		return
	}
	if !g.track(s) {
		_ = s.Close()
		return
	}
	defer g.untrack(s)
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(s, c)
	go pipe(c, s)
	<-done
	<-done
}
