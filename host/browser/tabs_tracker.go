package browser

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/mmcp-dev/mmcp/host/observation"
)

// Tab roles: what a tab is to the session (mm_switch_to_tab and
// mm_close_tab pick tabs by them).
const (
	RoleExtension    = "extension"
	RoleNotification = "notification"
	RoleDapp         = "dapp"
	RoleOther        = "other"
)

// WalletRole reports whether role is one of the wallet's own pages: its
// home (extension) or a notification popup.
func WalletRole(role string) bool {
	return role == RoleExtension || role == RoleNotification
}

// tab is one tracked page target.
type tab struct {
	id     proto.TargetTargetID
	url    string
	seq    int                  // creation order, for "newest" and stable listings
	opener proto.TargetTargetID // the page that opened it (window.open), if any
	page   *rod.Page            // attached lazily, nil until needed
}

// tracker is the session's view of the browser's page targets, fed by one
// long-lived target event loop. It never calls Chrome itself.
type tracker struct {
	mu       sync.Mutex
	pages    Pages
	extID    string
	tabs     map[proto.TargetTargetID]*tab
	workers  map[proto.TargetTargetID]string // service worker / background URLs
	hidden   map[proto.TargetTargetID]bool   // mmcp's own pages, never tabs (hide)
	seq      int
	baseSeq  int // tabs up to this seq were there before the session (attached)
	homeID   proto.TargetTargetID
	activeID proto.TargetTargetID
	changed  chan struct{} // closed and replaced on every change
	onActive []func()
}

func newTracker(p Pages, extID string) *tracker {
	return &tracker{
		pages:   p,
		extID:   extID,
		tabs:    map[proto.TargetTargetID]*tab{},
		workers: map[proto.TargetTargetID]string{},
		hidden:  map[proto.TargetTargetID]bool{},
		changed: make(chan struct{}),
	}
}

// roleOf classifies a page URL.
func (t *tracker) roleOf(url string) string {
	switch {
	case strings.HasPrefix(url, "chrome-extension://"+t.extID+"/") && t.extID != "":
		if t.pages.isNotification(url) {
			return RoleNotification
		}
		return RoleExtension
	case strings.HasPrefix(url, "http://"), strings.HasPrefix(url, "https://"):
		return RoleDapp
	default:
		return RoleOther
	}
}

// notifyLocked wakes every waiter; t.mu must be held.
func (t *tracker) notifyLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// wait returns a channel closed at the next change.
func (t *tracker) wait() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// upsert records a target's latest info. Only pages are tabs; service
// workers and background pages are remembered for extension-id discovery.
func (t *tracker) upsert(info *proto.TargetTargetInfo) {
	if info == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch info.Type {
	case proto.TargetTargetInfoTypePage:
		if t.hidden[info.TargetID] {
			return
		}
		if tb, ok := t.tabs[info.TargetID]; ok {
			tb.url = info.URL
		} else {
			t.seq++
			t.tabs[info.TargetID] = &tab{id: info.TargetID, url: info.URL, seq: t.seq, opener: info.OpenerID}
		}
	case proto.TargetTargetInfoTypeServiceWorker, proto.TargetTargetInfoTypeBackgroundPage:
		t.workers[info.TargetID] = info.URL
	default:
		return
	}
	t.notifyLocked()
}

// keepWorkers forgets the service workers and background pages of
// extension extID that are not in live: Chrome sends no targetDestroyed
// for the worker of an extension it reloads, and a gone worker taken for
// a new one costs a reload its attach's bound.
func (t *tracker) keepWorkers(extID string, live []proto.TargetTargetID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, u := range t.workers {
		if extensionIDFromURL(u) == extID && !slices.Contains(live, id) {
			delete(t.workers, id)
		}
	}
}

// remove forgets a destroyed target. When it was the active page, the home
// page becomes active (or the newest extension page when home is gone), and
// the callbacks to run are returned for the caller to call without the lock,
// with the removed tab's page (nil when there was none).
func (t *tracker) remove(id proto.TargetTargetID) (*rod.Page, []func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.workers, id)
	delete(t.hidden, id)
	tb, ok := t.tabs[id]
	if !ok {
		return nil, nil
	}
	delete(t.tabs, id)
	if id == t.homeID {
		t.homeID = ""
	}
	var cbs []func()
	if id == t.activeID {
		t.activeID = t.fallbackLocked()
		cbs = append(cbs, t.onActive...)
	}
	t.notifyLocked()
	return tb.page, cbs
}

// fallbackLocked picks the page that becomes active when the active one
// closes: home, else the newest attached extension page, else none.
func (t *tracker) fallbackLocked() proto.TargetTargetID {
	if t.homeID != "" {
		return t.homeID
	}
	var best *tab
	for _, tb := range t.tabs {
		if tb.page != nil && t.roleOf(tb.url) == RoleExtension && (best == nil || tb.seq > best.seq) {
			best = tb
		}
	}
	if best == nil {
		return ""
	}
	return best.id
}

// setActive makes id active and returns the callbacks to run when it
// changed.
func (t *tracker) setActive(id proto.TargetTargetID) []func() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.activeID == id {
		return nil
	}
	t.activeID = id
	t.notifyLocked()
	return append([]func(){}, t.onActive...)
}

// hide keeps page id out of the tabs for good: a page mmcp keeps open for
// itself (the chrome://extensions page of the reloads), which no listing,
// switch or click's tabsOpened may show.
func (t *tracker) hide(id proto.TargetTargetID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hidden[id] = true
	if _, ok := t.tabs[id]; ok {
		delete(t.tabs, id)
		t.notifyLocked()
	}
}

// ensure records a page this session created, unless the event loop
// already did (its URL is then newer).
func (t *tracker) ensure(id proto.TargetTargetID, url string) {
	t.upsertIfAbsent(&proto.TargetTargetInfo{TargetID: id, Type: proto.TargetTargetInfoTypePage, URL: url})
}

func (t *tracker) upsertIfAbsent(info *proto.TargetTargetInfo) {
	t.mu.Lock()
	_, ok := t.tabs[info.TargetID]
	t.mu.Unlock()
	if !ok {
		t.upsert(info)
	}
}

func (t *tracker) setHome(id proto.TargetTargetID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.homeID = id
}

func (t *tracker) setPage(id proto.TargetTargetID, p *rod.Page) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tb, ok := t.tabs[id]; ok {
		tb.page = p
	}
}

func (t *tracker) setExtID(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.extID = id
}

func (t *tracker) addOnActive(fn func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onActive = append(t.onActive, fn)
}

// markForeign makes every tab seen so far not the session's: an attached
// Chrome's own tabs, which the session never counts or closes.
func (t *tracker) markForeign() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.baseSeq = t.seq
}

// TabInfo is a consistent copy of one tracked tab.
type TabInfo struct {
	ID     proto.TargetTargetID
	URL    string
	Role   string
	Seq    int
	Opener proto.TargetTargetID
	Page   *rod.Page
	Home   bool
	Owned  bool // the session's tab (not an attached Chrome's own)
}

func (t *tracker) infoLocked(tb *tab) TabInfo {
	return TabInfo{ID: tb.id, URL: tb.url, Role: t.roleOf(tb.url), Seq: tb.seq, Opener: tb.opener, Page: tb.page,
		Home: tb.id == t.homeID, Owned: tb.seq > t.baseSeq}
}

// get returns the tab with id.
func (t *tracker) get(id proto.TargetTargetID) (TabInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tb, ok := t.tabs[id]
	if !ok {
		return TabInfo{}, false
	}
	return t.infoLocked(tb), true
}

// active returns the active tab.
func (t *tracker) active() (TabInfo, bool) {
	t.mu.Lock()
	id := t.activeID
	t.mu.Unlock()
	return t.get(id)
}

// home returns the home tab.
func (t *tracker) home() (TabInfo, bool) {
	t.mu.Lock()
	id := t.homeID
	t.mu.Unlock()
	return t.get(id)
}

// list returns every tab in creation order.
func (t *tracker) list() []TabInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]TabInfo, 0, len(t.tabs))
	for _, tb := range t.tabs {
		out = append(out, t.infoLocked(tb))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// owned returns the session's tabs in creation order.
func (t *tracker) owned() []TabInfo {
	var out []TabInfo
	for _, ti := range t.list() {
		if ti.Owned {
			out = append(out, ti)
		}
	}
	return out
}

// find returns the tabs matching role (when not empty) and URL prefix (when
// not empty), in creation order.
func (t *tracker) find(role, urlPrefix string) []TabInfo {
	var out []TabInfo
	for _, ti := range t.list() {
		if role != "" && ti.Role != role {
			continue
		}
		if urlPrefix != "" && !strings.HasPrefix(ti.URL, urlPrefix) {
			continue
		}
		out = append(out, ti)
	}
	return out
}

// extensionIDs returns the ids of extensions seen in worker or page URLs.
func (t *tracker) extensionIDs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []string
	add := func(u string) {
		if id := extensionIDFromURL(u); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, u := range t.workers {
		add(u)
	}
	for _, tb := range t.tabs {
		add(tb.url)
	}
	sort.Strings(ids)
	return ids
}

// tabs renders the tabs block of mm_get_state.
func (t *tracker) tabsBlock() observation.Tabs {
	var out observation.Tabs
	act, _ := t.active()
	out.Active = observation.Tab{Role: act.Role, URL: act.URL}
	out.Tracked = []observation.Tab{}
	for _, ti := range t.list() {
		out.Tracked = append(out.Tracked, observation.Tab{Role: ti.Role, URL: ti.URL})
	}
	return out
}

// run consumes target events until ctx ends. It seeds the table from
// Target.getTargets first so that nothing created before the subscription
// is missed; events already queued are then applied in order.
// onRemoved, when not nil, is called for every destroyed page target.
func (t *tracker) run(ctx context.Context, b *rod.Browser, events <-chan *rod.Message, seeded chan<- error, onRemoved func(proto.TargetTargetID, *rod.Page)) {
	res, err := proto.TargetGetTargets{}.Call(b.Context(ctx))
	if err == nil {
		for _, info := range res.TargetInfos {
			t.upsert(info)
		}
	}
	seeded <- err
	for msg := range events {
		switch msg.Method {
		case "Target.targetCreated":
			var ev proto.TargetTargetCreated
			if msg.Load(&ev) {
				t.upsert(ev.TargetInfo)
			}
		case "Target.targetInfoChanged":
			var ev proto.TargetTargetInfoChanged
			if msg.Load(&ev) {
				t.upsert(ev.TargetInfo)
			}
		case "Target.targetDestroyed":
			var ev proto.TargetTargetDestroyed
			if msg.Load(&ev) {
				page, cbs := t.remove(ev.TargetID)
				for _, cb := range cbs {
					cb()
				}
				if onRemoved != nil {
					onRemoved(ev.TargetID, page)
				}
			}
		}
	}
}

// TabSet is the page targets open at one moment (Chrome.OpenTabs), for
// Chrome.OpenedSince.
type TabSet map[proto.TargetTargetID]struct{}

// OpenTabs is the page targets open now.
func (s *Chrome) OpenTabs() TabSet {
	out := TabSet{}
	for _, ti := range s.tabs.list() {
		out[ti.ID] = struct{}{}
	}
	return out
}

// OpenedSince lists the tabs ("role URL") open now that were not in
// before: new targets only, so a page that changed its URL (a hash route
// of the same tab) is not a tab opened.
func (s *Chrome) OpenedSince(before TabSet) []string {
	var out []string
	for _, ti := range s.tabs.list() {
		if _, ok := before[ti.ID]; !ok {
			out = append(out, ti.Role+" "+ti.URL)
		}
	}
	return out
}
