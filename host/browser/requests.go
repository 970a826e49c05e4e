package browser

import (
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/confirm"
	"github.com/mmcp-dev/mmcp/host/discovery"
)

// Requests is the log of the EIP-1193 requests the dapps in this browser
// made, as they made them and as they were answered.
func (s *Chrome) Requests() *confirm.Log { return s.requests }

// captureRequests has page id's later documents report their dapp's
// requests into the log (discovery.CaptureProvider); the wallet's own
// pages are left alone.
func (s *Chrome) captureRequests(id proto.TargetTargetID, page *rod.Page) {
	if ti, ok := s.tabs.get(id); ok && WalletRole(ti.Role) {
		return
	}
	if err := discovery.CaptureProvider(page.Timeout(2 * time.Second)); err != nil {
		s.log.Debug("request capture not added", "error", err)
	}
}
