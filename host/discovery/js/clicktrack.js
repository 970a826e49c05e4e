// What a click changed, measured in the page without a round trip of its
// own. Pasted after lib.js and probe.js into action.js and after.js; only
// declarations.
//
// The visible testids are kept in globalThis.__mmcpTestIds between clicks:
// one full scan of the document per document, then a MutationObserver
// names the subtrees that changed and only their [data-testid] elements are
// checked again (a change of an element's attributes or children can only
// show or hide elements inside it, except through CSS sibling combinators,
// :has() or pseudo-classes, which are not followed). A full scan follows
// when too much changed.
//
// armClick keeps the state right before the press in globalThis.__mmcpClick
// and measures the state after once the click's handlers have run (see
// report below): it hands it to the __mmcpClicked binding (package
// discovery's Click waits for it) and to afterClick (after.js), whichever
// the host reads first.
//
// armClick also checks where the press lands, as the page sees it: the
// first trusted event of the click (HIT_EVENTS, in capture on el's window)
// must target el or something inside it. When it does not (the element
// moved between the host's read of its box and the press), every event of
// the click is stopped before the page's own handlers see it, and the
// measure names what was hit (hit), so the host presses again.

// maxDirtyRoots bounds the subtrees kept between two reads: beyond it the
// next read scans the whole document.
const maxDirtyRoots = 256;

function testIdTracker() {
  let t = globalThis.__mmcpTestIds;
  if (t && t.doc === document) return t;
  t = { doc: document, vis: new Map(), counts: new Map(), dirty: new Set(), full: true, obs: null };
  const note = (recs) => {
    if (t.full) return;
    for (const r of recs) {
      if (r.type === 'characterData') continue;
      t.dirty.add(r.target);
      if (t.dirty.size > maxDirtyRoots) { t.full = true; t.dirty.clear(); return; }
    }
  };
  t.obs = new MutationObserver(note);
  t.obs.observe(document, { subtree: true, childList: true, attributes: true });
  t.note = note;
  globalThis.__mmcpTestIds = t;
  return t;
}

function trackerSet(t, e, id, shown) {
  const old = t.vis.get(e);
  if (old !== undefined) {
    if (shown && old === id) return;
    t.vis.delete(e);
    const n = t.counts.get(old) - 1;
    if (n > 0) t.counts.set(old, n); else t.counts.delete(old);
  }
  if (!shown) return;
  t.vis.set(e, id);
  t.counts.set(id, (t.counts.get(id) || 0) + 1);
}

function trackerCheck(t, e) {
  const id = e.getAttribute('data-testid');
  trackerSet(t, e, id, id !== null && e.isConnected && rendered(e));
}

// syncTestIds brings the tracker up to date and returns it; its counts'
// keys are the visible testids, in about document order.
function syncTestIds() {
  const t = testIdTracker();
  t.note(t.obs.takeRecords());
  if (t.full) {
    t.vis.clear();
    t.counts.clear();
    for (const e of document.querySelectorAll('[data-testid]')) trackerCheck(t, e);
    t.full = false;
    t.dirty.clear();
    return t;
  }
  if (!t.dirty.size) return t;
  for (const [e] of t.vis) if (!e.isConnected) trackerSet(t, e, null, false);
  for (const r of t.dirty) {
    if (r.nodeType !== 1 || !r.isConnected) continue;
    trackerCheck(t, r);
    for (const e of r.querySelectorAll('[data-testid]')) trackerCheck(t, e);
  }
  t.dirty.clear();
  return t;
}

// visibleIdList is the tracker's visible testids as an array.
function visibleIdList() {
  return Array.from(syncTestIds().counts.keys());
}

// HIT_EVENTS are the events of one click the hit check guards.
const HIT_EVENTS = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'];

// armClick keeps what the page shows right before the click (token names
// it; probe may be null), guards the press (see above) and measures the
// state after once the click has run in el's window.
function armClick(el, token, cap, probe) {
  const old = globalThis.__mmcpClick;
  if (old && old.disarm) old.disarm();
  if (old && old.unguard) old.unguard();
  // hit: null until the press is seen, then '' when it landed on el, else
  // what it landed on.
  const c = { token, cap, probe, href: location.href, ids: visibleIdList(), els: probe ? probeElements(probe) : null, bg: backgroundRequests(0), result: null, hit: null };
  const win = el.ownerDocument.defaultView;
  const report = () => {
    if (c.result !== null) return;
    const r = finishClick(c);
    try { globalThis.__mmcpClicked(r); } catch (e) { /* no binding: the host asks */ }
  };
  const guard = (ev) => {
    if (!ev.isTrusted) return;
    if (c.hit === null) {
      const path = ev.composedPath();
      const t = path.length && path[0].nodeType === 1 ? path[0] : null;
      c.hit = t && composedContains(el, t) ? '' : describe(t);
    }
    if (c.hit !== '') {
      ev.preventDefault();
      ev.stopImmediatePropagation();
    }
    // The click event follows the release in the same task: the guard
    // lasts one click, even when the host never reads the measure, and the
    // measure is taken then at the latest.
    if (ev.type === 'pointerup') {
      setTimeout(() => {
        if (c.unguard) { c.unguard(); c.unguard = null; }
        report();
      }, 0);
    }
  };
  for (const type of HIT_EVENTS) win.addEventListener(type, guard, { capture: true });
  c.unguard = () => {
    for (const type of HIT_EVENTS) win.removeEventListener(type, guard, { capture: true });
  };
  // The measure is taken when the click event has bubbled up to el's
  // window (after the page's handlers, and the microtasks a trusted event
  // runs after each of them: a React update included), or in the task the
  // guard queues on the release when no click event gets there (stopped, a
  // missed press, or no click at all), or when the click has a default
  // action still to run (a form to submit, a label's control to toggle, a
  // link to follow: it runs after the event, in the same task).
  const onClick = (ev) => {
    if (ev.defaultPrevented || !activates(ev)) report();
  };
  win.addEventListener('click', onClick, { once: true });
  c.disarm = () => win.removeEventListener('click', onClick);
  globalThis.__mmcpClick = c;
}

// activates reports whether click event ev has a default action that runs
// after it: on a link, a label, a summary, a checkbox, radio or submit
// input, or a form's submit or reset button, on its path.
function activates(ev) {
  for (const n of ev.composedPath()) {
    if (n.nodeType !== 1) continue;
    switch (n.localName) {
      case 'a': case 'area':
        if (n.hasAttribute('href')) return true;
        break;
      case 'label': case 'summary':
        return true;
      case 'input':
        if (['checkbox', 'radio', 'submit', 'image', 'reset'].includes(n.type)) return true;
        break;
      case 'button':
        if (n.form && (n.type === 'submit' || n.type === 'reset')) return true;
        break;
    }
  }
  return false;
}

// finishClick measures the state after click c once and returns its JSON.
function finishClick(c) {
  if (c.result !== null) return c.result;
  if (c.disarm) { c.disarm(); c.disarm = null; }
  if (c.unguard) { c.unguard(); c.unguard = null; }
  const closed = window.closed;
  const elsAfter = c.probe && !closed ? probeElements(c.probe) : null;
  let o;
  if (closed) {
    o = { token: c.token, closed: true, known: false, urlAfter: location.href, elsAfter };
  } else {
    const t = syncTestIds();
    const before = new Set(c.ids);
    const appearedEls = [];
    const seen = new Set();
    for (const [e, id] of t.vis) {
      if (!before.has(id) && !seen.has(id)) { seen.add(id); appearedEls.push(e); }
    }
    appearedEls.sort((a, b) => (a.compareDocumentPosition(b) & 4 ? -1 : 1));
    const appeared = appearedEls.map((e) => t.vis.get(e));
    const disappeared = c.ids.filter((id) => !t.counts.has(id));
    // bg: the messages the click's handlers sent to the background, and
    // the tracker's number before the click (null when the page has no
    // tracker).
    const bgNow = c.bg ? backgroundRequests(c.bg.posted) : null;
    o = {
      token: c.token,
      closed: false,
      known: true,
      urlBefore: c.href,
      urlAfter: location.href,
      appeared: appeared.slice(0, c.cap),
      appearedCount: appeared.length,
      disappeared: disappeared.slice(0, c.cap),
      disappearedCount: disappeared.length,
      elsBefore: c.els,
      elsAfter,
      hit: c.hit,
      bg: bgNow ? { posted: bgNow.posted - c.bg.posted, since: c.bg.posted } : null,
    };
  }
  c.result = JSON.stringify(o);
  return c.result;
}
