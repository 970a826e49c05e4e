package session

import (
	"context"
	"path/filepath"

	"github.com/mmcp-dev/mmcp/host/launch"
	"github.com/mmcp-dev/mmcp/host/wallet"
	"github.com/mmcp-dev/mmcp/sdk"
)

// Reload reloads session s's extension in place (wallet.Wallet.Reload):
// the same Chrome, chain, fixture and dapp tabs, the wallet unlocked again
// with the fixture plugin's password, all within the launch's settle bound. buildID
// names the build now loaded ("" to hash the extension directory); later
// step records carry it.
func (m *Manager) Reload(ctx context.Context, s *Session, buildID string) (wallet.ReloadResult, error) {
	settle := m.cfg.SettleTimeout
	if settle <= 0 {
		settle = launch.DefaultSettleTimeout
	}
	res, err := s.browser.Reload(ctx, wallet.ReloadOptions{Password: s.parts.UnlockPassword(), Settle: settle})
	if buildID == "" && s.parts != nil {
		buildID, _ = sdk.BuildID(s.parts.Extension)
	}
	s.setBuildID(buildID)
	return res, err
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
