// Package pgtest starts a throwaway PostgreSQL server for tests: initdb in
// a temporary directory, postgres listening only on a Unix socket there,
// stopped (and the directory removed) when the test ends.
//
// The binaries are found on PATH, else in /usr/lib/postgresql/*/bin
// (Debian's postgresql package). initdb and postgres refuse to run as
// root, so under root the server runs as the unprivileged user "nobody"
// (or MMCP_PG_USER): the process gets that uid directly (no su/runuser),
// and the data directory is created outside t.TempDir (whose parents only
// root may enter) and handed to that user.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// startTimeout bounds how long the server may take to accept connections.
const startTimeout = 30 * time.Second

// Server is one running PostgreSQL.
type Server struct {
	t      testing.TB
	bin    string
	dir    string // data directory parent: data/ and the socket
	cred   *syscall.Credential
	cmd    *exec.Cmd
	exited chan struct{}
}

// Bin returns the directory of initdb and postgres, or "" when PostgreSQL
// is not installed.
func Bin() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Strings(m)
	if len(m) == 0 {
		return ""
	}
	return filepath.Dir(m[len(m)-1])
}

// Start initializes and starts a server; it fails the test when
// PostgreSQL is not installed (scripts/setup.sh installs it).
func Start(t testing.TB) *Server {
	t.Helper()
	bin := mustBin(t)
	dir, err := os.MkdirTemp("", "mmcp-pg-")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, bin: bin, dir: dir}
	t.Cleanup(func() {
		s.Stop()
		os.RemoveAll(dir)
	})
	s.init()
	return s
}

// mustBin is Bin, failing the test when PostgreSQL is not installed.
func mustBin(t testing.TB) string {
	t.Helper()
	bin := Bin()
	if bin == "" {
		t.Fatal("PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin): run scripts/setup.sh")
	}
	return bin
}

// StartKept starts a server whose data lives in dir and is kept after the
// test (stopped, not removed): the first call initializes it, later calls
// start it again with the data of the earlier runs (a benchmark's
// generated records). dir must not be under t.TempDir when running as
// root (see the package comment).
func StartKept(t testing.TB, dir string) *Server {
	t.Helper()
	bin := mustBin(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, bin: bin, dir: dir}
	t.Cleanup(s.Stop)
	if _, err := os.Stat(filepath.Join(s.data(), "PG_VERSION")); err == nil {
		s.runAs()
		s.Start()
		return s
	}
	os.RemoveAll(s.data())
	s.init()
	return s
}

// runAs sets the user the server runs as: under root, the unprivileged
// MMCP_PG_USER (default nobody), who gets the directory.
func (s *Server) runAs() {
	t := s.t
	if os.Geteuid() == 0 {
		name := os.Getenv("MMCP_PG_USER")
		if name == "" {
			name = "nobody"
		}
		u, err := user.Lookup(name)
		if err != nil {
			t.Fatalf("running as root: PostgreSQL needs an unprivileged user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(s.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
}

// init runs initdb in the server's directory and starts the server.
func (s *Server) init() {
	t := s.t
	s.runAs()
	out, err := s.command(filepath.Join(s.bin, "initdb"), "-D", s.data(), "-U", "mmcp", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync").CombinedOutput()
	if err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s.Start()
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// URL is the server's connection string (Unix socket, user mmcp, no
// password).
func (s *Server) URL() string {
	return fmt.Sprintf("host=%s port=5432 user=mmcp dbname=postgres sslmode=disable", s.dir)
}

// Start starts the (stopped) server and waits until it accepts
// connections.
func (s *Server) Start() {
	s.t.Helper()
	cmd := s.command(filepath.Join(s.bin, "postgres"), "-D", s.data(), "-k", s.dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	logf, err := os.Create(filepath.Join(s.dir, "postgres.log"))
	if err != nil {
		s.t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start postgres: %v", err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(s.exited) }()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for {
		c, err := pgx.Connect(ctx, s.URL())
		if err == nil {
			c.Close(ctx)
			return
		}
		select {
		case <-s.exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
			s.t.Fatalf("postgres exited: %s", log)
		case <-ctx.Done():
			s.t.Fatalf("postgres not ready after %v: %v", startTimeout, err)
		case <-time.After(20 * time.Millisecond): // poll interval
		}
	}
}

// Stop stops the server (fast shutdown: clients are disconnected) and
// waits for it to exit.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exited:
	case <-time.After(startTimeout):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
	s.cmd = nil
}
