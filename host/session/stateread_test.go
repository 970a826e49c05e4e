package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-rod/rod"

	"github.com/mmcp-dev/mmcp/host/discovery"
	"github.com/mmcp-dev/mmcp/host/observation"
	"github.com/mmcp-dev/mmcp/host/tools"
	"github.com/mmcp-dev/mmcp/host/wallet"
)

// TestStateReadRecent: a read-only call's record takes the state read of
// its page still in flight or ended at most readFresh ago (one read, not
// two), and never one of another page, an older one, or one that a call
// that may change the page, the wallet or the chain started or ended
// since it started (another tools.Changes).
func TestStateReadRecent(t *testing.T) {
	var rs stateReads
	page, other := &rod.Page{}, &rod.Page{}
	now := time.Now()
	if rs.recent(page, now, 4) != nil {
		t.Fatal("no read started: want none")
	}
	release := make(chan struct{})
	reads := 0
	r := rs.start(page, 4, func() (observation.State, string, error) {
		reads++
		<-release
		return observation.State{CurrentURL: "u"}, "v1", nil
	})
	if got := rs.recent(page, now, 4); got != r {
		t.Fatalf("in flight on its page: got %p, want the read started (%p)", got, r)
	}
	if rs.recent(other, now, 4) != nil {
		t.Fatal("a read of another page was taken")
	}
	if rs.recent(page, now, 5) != nil {
		t.Fatal("a read in flight when a changing call started was taken")
	}
	close(release)
	st, v, err := r.wait(context.Background())
	if err != nil || st.CurrentURL != "u" || v != "v1" || reads != 1 {
		t.Fatalf("wait: %+v %q %v after %d reads; want the read's own result, read once", st, v, err, reads)
	}
	if got := rs.recent(page, r.ended.Add(readFresh), 4); got != r {
		t.Fatalf("a read ended %v ago: got %p, want it taken (%p)", readFresh, got, r)
	}
	if rs.recent(page, r.ended.Add(readFresh+time.Millisecond), 4) != nil {
		t.Fatalf("a read ended over %v ago was taken: its state may be older than the call", readFresh)
	}
	if rs.recent(page, r.ended, 6) != nil {
		t.Fatal("a read made before a changing call started and ended was taken")
	}
	never := make(chan struct{})
	defer close(never)
	blocked := rs.start(page, 6, func() (observation.State, string, error) { <-never; return observation.State{}, "", nil })
	if got := rs.recent(page, time.Now(), 6); got != blocked {
		t.Fatalf("the latest read: got %p, want it (%p)", got, blocked)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := blocked.wait(ctx); err == nil {
		t.Fatal("wait on a cancelled context returned no error")
	}
}

// TestPairAhead: a record pairs the state read ahead with its walk only
// when the walk saw the page the read saw (on a wallet page the same
// version, elsewhere the same URL and load state), read from the walk
// itself: no read of the page before or after it. Without a walk it
// pairs when the page still holds for the read. Otherwise it takes nothing
// of it (the caller reads the state again).
func TestPairAhead(t *testing.T) {
	ctx := context.Background()
	read := func(st observation.State, version string, err error) *stateRead {
		r := &stateRead{done: make(chan struct{}), st: st, version: version, err: err}
		close(r.done)
		return r
	}
	dapp := observation.State{CurrentURL: "http://dapp/", IsLoaded: true}
	wallet := observation.State{CurrentURL: "chrome-extension://x/home.html", IsLoaded: true, CurrentScreen: "home"}
	loaded := func(url, version string) discovery.At {
		return discovery.At{URL: url, ReadyState: "complete", Version: version}
	}
	for _, c := range []struct {
		name         string
		r            *stateRead
		wallet, full bool
		at           discovery.At // where the page is now (without a walk) or was at the walk
		walkErr      error
		want, walked bool
	}{
		{"wallet page unchanged", read(wallet, "v1", nil), true, true, loaded(wallet.CurrentURL, "v1"), nil, true, true},
		{"wallet page changed between the read and the walk", read(wallet, "v1", nil), true, true, loaded(wallet.CurrentURL, "v2"), nil, false, true},
		{"wallet page the version cannot follow", read(wallet, "v1", nil), true, true, loaded(wallet.CurrentURL, ""), nil, false, true},
		{"dapp with the same URL and load state", read(dapp, "", nil), false, true, loaded(dapp.CurrentURL, "b"), nil, true, true},
		{"dapp whose URL changed", read(dapp, "", nil), false, true, loaded(dapp.CurrentURL+"#x", "b"), nil, false, true},
		{"dapp still loading at the walk", read(dapp, "", nil), false, true, discovery.At{URL: dapp.CurrentURL, ReadyState: "loading"}, nil, false, true},
		{"the walk failed (another page became active)", read(dapp, "", nil), false, true, loaded(dapp.CurrentURL, "b"), errors.New("another page is active"), false, true},
		{"state only, unchanged", read(wallet, "v1", nil), true, false, loaded(wallet.CurrentURL, "v1"), nil, true, false},
		{"state only, changed", read(wallet, "v1", nil), true, false, loaded(wallet.CurrentURL, "v2"), nil, false, false},
		{"the read failed", read(observation.State{}, "", errors.New("dead")), true, true, loaded(wallet.CurrentURL, "v1"), nil, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			reads := 0
			at := func() (discovery.At, error) {
				reads++
				return c.at, nil
			}
			walked := false
			walk := func(observation.State, string) ([]observation.TestIDItem, []observation.A11yNode, discovery.At, error) {
				walked = true
				return []observation.TestIDItem{{TestID: "t"}}, []observation.A11yNode{{Role: "button"}}, c.at, c.walkErr
			}
			obs := &observation.Observation{}
			got := pairAhead(ctx, c.r, c.wallet, c.full, at, walk, obs)
			if got != c.want || walked != c.walked {
				t.Fatalf("paired %v after walking %v; want %v, %v", got, walked, c.want, c.walked)
			}
			if c.full && reads > 0 {
				t.Fatalf("the page was read %d times beside the walk, which says where the page was", reads)
			}
			if !got && (obs.State.CurrentURL != "" || obs.TestIDs != nil) {
				t.Fatalf("a pairing refused filled the observation: %+v", obs)
			}
			if got && (obs.State.CurrentURL != c.r.st.CurrentURL || (c.full && len(obs.TestIDs) != 1)) {
				t.Fatalf("paired observation %+v, want the read's state and the walk", obs)
			}
		})
	}
}

// TestReadAheadIsTheCallsOwn: a call's record takes the read its call
// started ahead, once; another call's record (one whose call started none,
// after a call whose record never asked for its read) takes nothing.
func TestReadAheadIsTheCallsOwn(t *testing.T) {
	var rs stateReads
	r := &stateRead{done: make(chan struct{})}
	rs.setAhead(r, 7)
	if rs.takeAhead(8) != nil {
		t.Fatal("call 8's record took the read call 7 started")
	}
	if rs.takeAhead(0) != nil {
		t.Fatal("a record outside any call took a read")
	}
	if rs.takeAhead(7) != r {
		t.Fatal("call 7's record did not get its read")
	}
	if rs.takeAhead(7) != nil {
		t.Fatal("the read was taken twice")
	}
}

// TestSharedAppRightAfterItsCall: the app state a navigation read ahead,
// once its record took it, serves the state read of a read-only call that
// starts right after (a snapshot's record, which would otherwise ask the
// wallet's background again while the next click waits), and no read
// after readFresh or after a call that may change the wallet started.
func TestSharedAppRightAfterItsCall(t *testing.T) {
	var rs stateReads
	if rs.sharedApp(time.Now(), tools.Changes()) != nil {
		t.Fatal("an app read shared before any call read one ahead")
	}
	a := &wallet.AppRead{}
	rs.setApp(a, 7)
	if rs.takeApp(7) != a {
		t.Fatal("call 7's record did not get its app read")
	}
	now, gen := time.Now(), tools.Changes()
	if rs.sharedApp(now, gen) != a {
		t.Fatal("a read-only call right after did not share the app read")
	}
	if rs.sharedApp(now.Add(readFresh+time.Millisecond), gen) != nil {
		t.Fatal("the app read was shared past readFresh")
	}
	if rs.sharedApp(now, gen+1) != nil {
		t.Fatal("the app read was shared after a call that may change the wallet")
	}
	if rs.takeApp(8) != nil || rs.sharedApp(time.Now(), tools.Changes()) != nil {
		t.Fatal("after a call that read no app state ahead, the older read was still shared")
	}
}

// TestReadSinceTheCallAnswered: a record takes the latest state read when
// a read-only call started it after the record's call answered, on the
// same page, with no call that may change the wallet since (a click's
// record after the screenshot it gave way to): not one that started
// before the answer, of another page, after another such call, or that
// failed.
func TestReadSinceTheCallAnswered(t *testing.T) {
	page, other := &rod.Page{}, &rod.Page{}
	var rs stateReads
	answered := time.Now()
	if rs.since(page, answered, 4) != nil {
		t.Fatal("a read taken when there was none")
	}
	before := rs.start(page, 4, func() (observation.State, string, error) { return observation.State{}, "", nil })
	<-before.done
	before.started = answered.Add(-time.Millisecond)
	if rs.since(page, answered, 4) != nil {
		t.Fatal("a read that started before the call answered was taken")
	}
	r := rs.start(page, 4, func() (observation.State, string, error) { return observation.State{CurrentURL: "u"}, "v", nil })
	r.started = answered.Add(time.Millisecond)
	if got := rs.since(page, answered, 4); got != r {
		t.Fatalf("got %v, want the read the screenshot started", got)
	}
	<-r.done
	if got := rs.since(page, answered, 4); got != r {
		t.Fatal("a read that ended long ago is not taken: the record wants the state as its call left it")
	}
	if rs.since(other, answered, 4) != nil || rs.since(page, answered, 5) != nil || rs.since(nil, answered, 4) != nil {
		t.Fatal("a read of another page, or from before another call, was taken")
	}
	failed := rs.start(page, 4, func() (observation.State, string, error) { return observation.State{}, "", errors.New("gone") })
	<-failed.done
	failed.started = answered.Add(2 * time.Millisecond)
	if rs.since(page, answered, 4) != nil {
		t.Fatal("a failed read was taken")
	}
}

// TestTakeWalk: a record takes a snapshot's walk only when the walk was
// made after its call answered and saw the page its state read: on a
// wallet page the same version (a version that cannot follow the page
// proves nothing), elsewhere the same URL and load state.
func TestTakeWalk(t *testing.T) {
	answered := time.Now()
	after, before := answered.Add(time.Millisecond), answered.Add(-time.Millisecond)
	dapp := observation.State{CurrentURL: "http://dapp/", IsLoaded: true}
	wallet := observation.State{CurrentURL: "chrome-extension://x/home.html", IsLoaded: true, CurrentScreen: "home"}
	walk := func(url, version string, walked time.Time) discovery.At {
		return discovery.At{URL: url, ReadyState: "complete", Version: version, Walked: walked}
	}
	for _, c := range []struct {
		name    string
		st      observation.State
		version string
		wallet  bool
		at      discovery.At
		want    bool
	}{
		{"wallet page, same version, walked since", wallet, "v1", true, walk(wallet.CurrentURL, "v1", after), true},
		{"wallet page, another version", wallet, "v1", true, walk(wallet.CurrentURL, "v2", after), false},
		{"wallet page the version cannot follow", wallet, "", true, walk(wallet.CurrentURL, "", after), false},
		{"wallet page, walked before the call answered", wallet, "v1", true, walk(wallet.CurrentURL, "v1", before), false},
		{"dapp, same URL and load state", dapp, "", false, walk(dapp.CurrentURL, "b", after), true},
		{"dapp, another URL", dapp, "", false, walk(dapp.CurrentURL+"#x", "b", after), false},
		{"dapp, walked before the call answered", dapp, "", false, walk(dapp.CurrentURL, "b", before), false},
	} {
		if got := takeWalk(c.st, c.version, answered, c.wallet)(c.at); got != c.want {
			t.Errorf("%s: took %v, want %v", c.name, got, c.want)
		}
	}
}
