// Helpers shared by every page-side function of package discovery. This text
// is pasted at the top of each function body, so it must only declare
// functions and constants. It runs in an isolated world: never rely on
// main-world globals, never use instanceof against constructors.

// tab is an addition to spec 000's kept actionable roles (issue 50): a
// wallet's home tabs are what an agent clicks.
const KEPT = { button: 1, link: 1, checkbox: 1, radio: 1, switch: 1, textbox: 1, combobox: 1, menuitem: 1, tab: 1, dialog: 1, alert: 1, status: 1, heading: 1 };
const ACTIONABLE = { button: 1, link: 1, checkbox: 1, radio: 1, switch: 1, textbox: 1, combobox: 1, menuitem: 1, tab: 1 };
// UNNAMED_DROPPED are the kept roles left out of the tree when their name is
// empty.
const UNNAMED_DROPPED = { heading: 1, status: 1 };
const NAME_FROM_CONTENT = { button: 1, link: 1, checkbox: 1, radio: 1, switch: 1, menuitem: 1, tab: 1, heading: 1 };

function collapse(s) {
  return (s || '').replace(/\s+/g, ' ').trim();
}

// children of n in the composed sense: an open shadow root replaces the light
// children (slotted ones are reached through their slot), a same-origin iframe
// continues into its document.
function kids(n) {
  if (n.shadowRoot) return n.shadowRoot.children;
  const tag = n.localName;
  if (tag === 'iframe' || tag === 'frame') {
    let d = null;
    try { d = n.contentDocument; } catch (e) { d = null; }
    return d && d.documentElement ? [d.documentElement] : [];
  }
  if (tag === 'slot') {
    const a = n.assignedElements ? n.assignedElements() : [];
    return a.length ? a : n.children;
  }
  return n.children;
}

// lightKids reports whether kids(n) are n's element children, to be read
// with firstElementChild and nextElementSibling: far cheaper on a big page
// than iterating the live list.
function lightKids(n) {
  if (n.shadowRoot) return false;
  const tag = n.localName;
  return tag !== 'iframe' && tag !== 'frame' && tag !== 'slot';
}

// composedParent is the parent of el in the walk of kids: its slot, its
// parent element, its shadow host, or the iframe its document is in.
function composedParent(el) {
  if (el.assignedSlot) return el.assignedSlot;
  if (el.parentElement) return el.parentElement;
  const pn = el.parentNode;
  if (pn && pn.host) return pn.host;
  if (pn && pn.nodeType === 9) {
    try { return pn.defaultView && pn.defaultView.frameElement; } catch (e) { return null; }
  }
  return null;
}

// VISIBILITY is checkVisibility's options, made once.
const VISIBILITY = { visibilityProperty: true, checkVisibilityCSS: true };

function visible(el) {
  if (!el.isConnected) return false;
  if (el.checkVisibility) {
    if (!el.checkVisibility(VISIBILITY)) return false;
  } else {
    const st = el.ownerDocument.defaultView.getComputedStyle(el);
    if (st.display === 'none' || st.visibility === 'hidden') return false;
  }
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

// rendered is visible without the size rule: the AX tree keeps zero-size
// elements, so the observation does too.
function rendered(el) {
  if (el.checkVisibility) return el.checkVisibility(VISIBILITY);
  const st = el.ownerDocument.defaultView.getComputedStyle(el);
  return st.display !== 'none' && st.visibility !== 'hidden';
}

// roleOf and nameOf take bare, true when el has no attributes
// (!el.hasAttributes()): a walk asks once instead of reading each.
function roleOf(el, bare) {
  const ra = bare ? null : el.getAttribute('role');
  const explicit = ra ? ra.trim().split(/\s+/)[0] : '';
  if (explicit === 'none' || explicit === 'presentation') return '';
  if (explicit) return explicit;
  const tag = el.localName;
  switch (tag) {
    case 'button': return 'button';
    case 'a': case 'area': return !bare && el.hasAttribute('href') ? 'link' : '';
    case 'textarea': return 'textbox';
    case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'dialog': return 'dialog';
    case 'output': return 'status';
    case 'input': {
      const t = ((bare ? null : el.getAttribute('type')) || 'text').toLowerCase();
      switch (t) {
        case 'button': case 'submit': case 'reset': case 'image': return 'button';
        case 'checkbox': return 'checkbox';
        case 'radio': return 'radio';
        case 'hidden': return '';
        case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        case 'number': return 'spinbutton';
        case 'range': return 'slider';
        case 'text': case 'email': case 'tel': case 'url': case 'password': case '':
          return el.hasAttribute('list') ? 'combobox' : 'textbox';
        default: return 'textbox';
      }
    }
  }
  if (!bare && el.getAttribute('contenteditable') !== null && el.isContentEditable) return 'textbox';
  return '';
}

function textOf(n, depth) {
  if (depth > 20) return '';
  let out = '';
  for (let c = (n.shadowRoot || n).firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3) { out += c.data; continue; }
    if (c.nodeType !== 1) continue;
    if (c.getAttribute('aria-hidden') === 'true') continue;
    const tag = c.localName;
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') continue;
    const al = c.getAttribute('aria-label');
    if (al && al.trim()) { out += ' ' + al + ' '; continue; }
    if (tag === 'img') { out += ' ' + (c.getAttribute('alt') || '') + ' '; continue; }
    // An empty element adds a word break at most, which changes nothing
    // at the start or after a break (every caller collapses the text):
    // its visibility need not be asked.
    if (!c.firstChild && !c.shadowRoot && (out === '' || /\s$/.test(out))) continue;
    if (!rendered(c)) continue;
    out += ' ' + textOf(c, depth + 1) + ' ';
  }
  return out;
}

// LABELS indexes, for one call, the labels of each tree (a document or a
// shadow root) by the control they label (labelsOf).
const LABELS = new Map();

// labelsOf is el.labels (the labels of el's tree whose control is el, in
// document order), read from one index of that tree's labels per call.
// The first el.labels of each field of a new document searches the whole
// tree: on a page of 800 fields, about 80 ms of the first walk after a
// navigation (BenchmarkSnapshotFresh: 128.5 ms before, 50.9 ms after).
function labelsOf(el) {
  const root = el.getRootNode();
  let byControl = LABELS.get(root);
  if (!byControl) {
    byControl = new Map();
    for (const l of root.querySelectorAll('label')) {
      const c = l.control;
      if (!c) continue;
      const a = byControl.get(c);
      if (a) a.push(l);
      else byControl.set(c, [l]);
    }
    LABELS.set(root, byControl);
  }
  return byControl.get(el) || [];
}

function byIds(el, ids) {
  const root = el.getRootNode();
  const parts = [];
  for (const id of ids.split(/\s+/)) {
    if (!id) continue;
    const t = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
    if (t) parts.push(t.getAttribute('aria-label') || textOf(t, 0));
  }
  return collapse(parts.join(' '));
}

function nameOf(el, role, bare) {
  if (!bare) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) { const s = byIds(el, lb); if (s) return s; }
    const al = collapse(el.getAttribute('aria-label'));
    if (al) return al;
  }
  const tag = el.localName;
  if (tag === 'input' || tag === 'textarea' || tag === 'select') {
    const t = bare ? '' : (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'input' && (t === 'button' || t === 'submit' || t === 'reset')) {
      return collapse(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
    }
    if (tag === 'input' && t === 'image') return collapse(el.getAttribute('alt')) || 'Submit';
    const labels = labelsOf(el);
    if (labels.length) {
      const s = collapse(labels.length === 1 ? textOf(labels[0], 0) : labels.map((l) => textOf(l, 0)).join(' '));
      if (s) return s;
    }
    if (bare) return '';
    return collapse(el.getAttribute('title')) || collapse(el.getAttribute('placeholder'));
  }
  if (bare && tag === 'img') return '';
  if (tag === 'img') return collapse(el.getAttribute('alt'));
  if (NAME_FROM_CONTENT[role]) {
    const s = collapse(textOf(el, 0));
    if (s) return s;
  }
  return bare ? '' : collapse(el.getAttribute('title'));
}

function boolAttr(el, name) {
  const v = el.getAttribute(name);
  if (v === 'true') return true;
  if (v === 'false') return false;
  return null;
}

function isDisabled(el) {
  try { if (el.matches(':disabled')) return true; } catch (e) { /* not a form element */ }
  // el or an ancestor up to its document or shadow root
  return el.closest('[aria-disabled="true"]') !== null;
}

function describe(el) {
  if (!el) return 'nothing';
  let s = el.localName;
  if (el.id) s += '#' + el.id;
  if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/).slice(0, 3).join('.');
  const tid = el.getAttribute('data-testid');
  if (tid) s += '[data-testid="' + tid + '"]';
  const txt = collapse(el.textContent).slice(0, 40);
  if (txt) s += ' "' + txt + '"';
  return s;
}

// deepAll finds every element matching sel in the document, open shadow
// roots and same-origin iframes, in composed pre-order.
function deepAll(doc, sel) {
  const out = [];
  const seen = new Set();
  const visitRoot = (root) => {
    for (const e of root.querySelectorAll(sel)) if (!seen.has(e)) { seen.add(e); out.push(e); }
    for (const e of root.querySelectorAll('*')) {
      if (e.shadowRoot) visitRoot(e.shadowRoot);
      const tag = e.localName;
      if (tag === 'iframe' || tag === 'frame') {
        let d = null;
        try { d = e.contentDocument; } catch (x) { d = null; }
        if (d) visitRoot(d);
      }
    }
  };
  visitRoot(doc);
  return out;
}

// locate finds the target element: the kept element of a described ref (only while it is
// attached and keeps the role and name it was described with), else the
// first visible match of a selector. It returns {el, count, state, reason};
// count -1 means not counted yet (see matchCount).
function locate(loc) {
  if (loc.gen) {
    const r = globalThis.__mmcpRefs;
    const el = r && r.gen === loc.gen ? r.els[loc.index] : null;
    if (!el) return { el: null, count: 0, state: 'stale', reason: 'belongs to an older snapshot or to a page that has reloaded' };
    if (!el.isConnected) return { el: null, count: 0, state: 'stale', reason: 'points at an element that is no longer in the page' };
    // A hidden element has no name to compare; the visibility wait decides.
    const role = roleOf(el);
    const name = rendered(el) ? nameOf(el, role) : loc.name;
    if (role !== loc.role || name !== loc.name) {
      return { el: null, count: 0, state: 'stale', reason: 'points at an element that changed from ' + loc.role + ' "' + loc.name + '" to ' + (role || 'no role') + ' "' + name + '"' };
    }
    return { el, count: 1 };
  }
  // deepAll returns the light DOM's matches first: its first visible match
  // is the answer when there is one, without walking every element for
  // shadow roots (the count only matters when the click fails).
  let first;
  try { first = document.querySelector(loc.sel); } catch (e) { return { el: null, count: 0, state: 'badselector', reason: String(e && e.message || e) }; }
  if (first && visible(first)) return { el: first, count: -1 };
  if (first) for (const e of document.querySelectorAll(loc.sel)) if (visible(e)) return { el: e, count: -1 };
  let all;
  try { all = deepAll(document, loc.sel); } catch (e) { return { el: null, count: 0, state: 'badselector', reason: String(e && e.message || e) }; }
  if (!all.length) return { el: null, count: 0, state: 'missing' };
  for (const e of all) if (visible(e)) return { el: e, count: all.length };
  return { el: all[0], count: all.length };
}

// matchCount counts the elements a selector locator matches, as deepAll
// finds them.
function matchCount(loc) {
  if (!loc.sel) return 1;
  try { return deepAll(document, loc.sel).length; } catch (e) { return 0; }
}

function rectOf(el) {
  const r = el.getBoundingClientRect();
  return { x: r.left, y: r.top, w: r.width, h: r.height };
}

function sameRect(a, b) {
  return a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
}

// animating reports whether a running animation or transition targets el
// or an element it is inside (through same-origin frames): only then may
// its box change before the next frame without a script moving it.
function animating(el) {
  for (let n = el; n; ) {
    const doc = n.ownerDocument;
    if (doc.getAnimations) {
      for (const a of doc.getAnimations()) {
        const t = a.playState === 'running' && a.effect && a.effect.target;
        if (t && composedContains(t, n)) return true;
      }
    }
    let fe = null;
    try { fe = doc.defaultView && doc.defaultView.frameElement; } catch (e) { fe = null; }
    n = fe;
  }
  return false;
}

// frameTick resolves at the next frame with true, or after 50 ms without
// one (a page that paints no frames) with false.
function frameTick() {
  return new Promise((res) => {
    let done = false;
    const f = (framed) => { if (!done) { done = true; res(framed); } };
    requestAnimationFrame(() => f(true));
    setTimeout(() => f(false), 50);
  });
}

// composedContains reports whether hit is el or inside it, crossing shadow
// boundaries upwards from hit.
function composedContains(el, hit) {
  for (let n = hit; n; ) {
    if (n === el) return true;
    if (n.parentNode) n = n.parentNode;
    else if (n.host) n = n.host;
    else return false;
  }
  return false;
}

