// The page's version, read by observe.js and by the state's probe
// (ProbeExpr); only declarations.
// It is an id of this world's document and a counter: a
// MutationObserver (document, subtree: children, attributes, text) and the
// events that change what the walk reads without a mutation (a checkbox's
// or a field's value, focus, hover, CSS transitions and animations, a
// resize or a load, a <details> toggle) count up; a hash of what the walk
// reads from properties no mutation reports (the checked state of
// checkboxes and radios, set by a script; a button input's value) is part
// of it. It cannot see into shadow roots or frames: a page with any is
// walked every time.
const VERSION_EVENTS = ['input', 'change', 'focusin', 'focusout', 'mouseover', 'mouseout',
  'transitionstart', 'transitionend', 'transitioncancel', 'animationstart', 'animationend',
  'animationiteration', 'animationcancel', 'resize', 'load', 'toggle', 'hashchange', 'popstate', 'pageshow'];

function pageVersion() {
  let t = globalThis.__mmcpVersion;
  if (!t) {
    t = { id: Math.random().toString(36).slice(2), n: 0, scanned: -1, opaque: true };
    const bump = () => { t.n++; };
    t.obs = new MutationObserver(bump);
    t.obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    for (const e of VERSION_EVENTS) addEventListener(e, bump, true);
    globalThis.__mmcpVersion = t;
  }
  if (t.obs.takeRecords().length) t.n++;
  return t;
}

// opaque: the page has a frame or an open shadow root, which the
// MutationObserver does not see into.
function opaque() {
  if (document.querySelector('iframe,frame,object,embed')) return true;
  for (const el of document.querySelectorAll('*')) if (el.shadowRoot) return true;
  return false;
}

// opaqueNow is opaque() for version t, scanned once per version.
function opaqueNow(t) {
  if (t.scanned !== t.n) { t.opaque = opaque(); t.scanned = t.n; }
  return t.opaque;
}

// properties: a hash of the inputs' checked states and button values.
function properties() {
  let h = 0;
  const add = (s) => { for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0; };
  for (const el of document.getElementsByTagName('input')) {
    const ty = el.type;
    if (ty === 'checkbox' || ty === 'radio') add(el.checked ? '1' : '0');
    else if (ty === 'button' || ty === 'submit' || ty === 'reset') add(el.value + '\u0000');
  }
  return h;
}

// versionString is the page's version now: the id, the counter and the
// properties' hash.
function versionString() {
  const t = pageVersion();
  return t.id + ':' + t.n + ':' + properties();
}
