package session

import (
	"context"
	"path/filepath"
	"time"

	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/wallet"
	"github.com/mmcp-dev/mmcp/sdk"
)

// hashWait bounds how long a reload's answer waits for the build id it
// computes; a slower hash (sdk.BuildID is bounded too) sets the id when it
// ends, off the call and its session lock.
const hashWait = 2 * time.Second

// Reload reloads session s's extension in place (wallet.Wallet.Reload):
// the same Chrome, chain, fixture and dapp tabs, the wallet unlocked again
// with the fixture plugin's password, all within the launch's settle bound. buildID
// names the build now loaded ("" to hash the extension directory, beside
// the reload); later step records carry it. mode says what is loaded
// again (wallet.ReloadMode); wallet.ReloadPages only when no file the
// running background loads changed (background.go), else the whole
// extension: the background runs on, unlocked.
func (m *Manager) Reload(ctx context.Context, s *Session, buildID string, mode wallet.ReloadMode) (wallet.ReloadResult, error) {
	settle := m.cfg.SettleTimeout
	if settle <= 0 {
		settle = launch.DefaultSettleTimeout
	}
	if mode == wallet.ReloadPages && !m.backgroundSame(s) {
		mode = wallet.ReloadWhole
	}
	if mode != wallet.ReloadPages {
		// The background starts again and reads its state.
		if err := m.serveAgain(ctx, s); err != nil {
			return wallet.ReloadResult{}, err
		}
	}
	var hashed <-chan struct{}
	if buildID != "" {
		s.setBuildID(buildID)
		if mode == wallet.ReloadWhole {
			go m.printBackground(s)
		}
	} else if s.parts != nil {
		hashed = m.hashBuild(s)
	}
	res, err := s.wallet.Reload(ctx, wallet.ReloadOptions{Password: s.parts.UnlockPassword(), Settle: settle, Mode: mode})
	if hashed != nil {
		t := time.NewTimer(hashWait)
		defer t.Stop()
		select {
		case <-hashed:
		case <-t.C:
			m.log.Warn("the build id is still being computed; the reload answers without it", "session", s.ID, "dir", s.parts.Extension)
		case <-ctx.Done():
		}
	}
	return res, err
}

// hashBuild computes the build id of session s's extension in the
// background (sdk.BuildID: regular files only, bounded, never blocking on
// a FIFO or a device) and sets it when done, unless another build id was
// set meanwhile; until then the id is "" (unknown). Files the hash had to
// leave out are named in a host log warning. The channel closes when the
// hash ended.
func (m *Manager) hashBuild(s *Session) <-chan struct{} {
	unknown := new(string)
	s.buildID.Store(unknown)
	dir := s.parts.Extension
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.printBackground(s)
		id, err := sdk.BuildID(context.Background(), dir)
		if err != nil {
			m.log.Warn("build id", "session", s.ID, "warning", err.Error())
		}
		if id != "" {
			s.buildID.CompareAndSwap(unknown, &id)
		}
	}()
	return done
}

// printBackground sets session s's background print to its extension
// directory's now (the background loads it, or has loaded it).
func (m *Manager) printBackground(s *Session) {
	if s.parts == nil {
		return
	}
	p, err := backgroundPrint(s.parts.Extension)
	if err != nil {
		m.log.Debug("background print", "session", s.ID, "error", err)
		p = nil
	}
	s.bg.Store(&p)
}

// backgroundSame reports whether the files session s's background loads
// are as it loaded them.
func (m *Manager) backgroundSame(s *Session) bool {
	was := s.bg.Load()
	if was == nil || s.parts == nil {
		return false
	}
	now, err := backgroundPrint(s.parts.Extension)
	return err == nil && was.same(now)
}

// RunsOn reports whether session s runs the unpacked extension in dir.
func RunsOn(s *Session, dir string) bool {
	if s == nil || s.parts == nil || dir == "" {
		return false
	}
	a, errA := filepath.Abs(s.parts.Extension)
	b, errB := filepath.Abs(dir)
	return errA == nil && errB == nil && filepath.Clean(a) == filepath.Clean(b)
}
