package browser

import (
	"context"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/discovery"
)

// What host/wallet reads of the Chrome session: the tracked tabs, the
// page tools act on, the input pipe.

// Tab is the tracked tab with id.
func (s *Chrome) Tab(id proto.TargetTargetID) (TabInfo, bool) { return s.tabs.get(id) }

// ActiveTab is the active tab.
func (s *Chrome) ActiveTab() (TabInfo, bool) { return s.tabs.active() }

// HomeTab is the extension's home tab.
func (s *Chrome) HomeTab() (TabInfo, bool) { return s.tabs.home() }

// FindTabs are the tabs of role (when not empty) whose URL starts with
// urlPrefix (when not empty), in the order they opened.
func (s *Chrome) FindTabs(role, urlPrefix string) []TabInfo { return s.tabs.find(role, urlPrefix) }

// OpenActivePage is the active page, the home page reopened when every
// extension page was closed.
func (s *Chrome) OpenActivePage(ctx context.Context) (*rod.Page, error) { return s.activePage(ctx) }

// ExtensionTab is the tab wallet navigation happens in: the active page
// when it is an extension page, else the home tab, reopened if it was
// closed.
func (s *Chrome) ExtensionTab(ctx context.Context) (*rod.Page, error) { return s.extensionTab(ctx) }

// Pipe is the input pipe on the session's Chrome connection.
func (s *Chrome) Pipe() *discovery.Pipe { return s.pipe }
