package chain

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// stopGrace is how long Anvil gets to exit on SIGTERM before SIGKILL.
const stopGrace = 2 * time.Second

// anvilProcess is one running Anvil and its process group.
type anvilProcess struct {
	cmd  *exec.Cmd
	out  *logWriter
	done chan struct{} // closed when the process has exited
	err  error         // Wait's result, set before done closes
}

// startAnvil starts bin with args in its own process group, its output
// going to log with secrets redacted.
func startAnvil(bin string, args []string, secrets []string, log hclog.Logger) (*anvilProcess, error) {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = sysProcAttr()
	cmd.Stdin = nil
	out := newLogWriter(log, secrets)
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &anvilProcess{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		out.flush()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *anvilProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop terminates the process group and returns once the process is gone.
func (p *anvilProcess) stop(ctx context.Context) error {
	if p.exited() {
		return nil
	}
	_ = signalGroup(p.cmd, false)
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	_ = signalGroup(p.cmd, true)
	select {
	case <-p.done:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("anvil did not exit after SIGKILL")
	}
}

// logWriter turns process output into log lines, redacting private keys
// and the mnemonic, and keeps the last lines for error reports.
type logWriter struct {
	log     hclog.Logger
	secrets []string

	mu      sync.Mutex
	partial []byte
	tail    []string
}

const tailLines = 30

func newLogWriter(log hclog.Logger, secrets []string) *logWriter {
	var s []string
	for _, x := range secrets {
		if x != "" {
			s = append(s, x)
		}
	}
	return &logWriter{log: log, secrets: s}
}

// Write implements io.Writer.
func (w *logWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, b...)
	for {
		i := strings.IndexByte(string(w.partial), '\n')
		if i < 0 {
			break
		}
		w.line(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
	return len(b), nil
}

func (w *logWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		w.line(string(w.partial))
		w.partial = nil
	}
}

// line logs one line; the caller holds mu.
func (w *logWriter) line(s string) {
	s = redact(strings.TrimRight(s, "\r"), w.secrets)
	if strings.TrimSpace(s) == "" {
		return
	}
	w.log.Debug(s)
	w.tail = append(w.tail, s)
	if len(w.tail) > tailLines {
		w.tail = w.tail[len(w.tail)-tailLines:]
	}
}

// lastLines returns the kept tail of the output.
func (w *logWriter) lastLines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.tail...)
}
