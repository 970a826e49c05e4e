// action(loc, mode, text, click): find the target (see locate) and check
// that it is attached, visible, enabled and stable; then for mode "click"
// scroll it into view and hit-test its centre (through same-origin frames)
// returning top-level viewport coordinates, for mode "type" focus it and
// select its content, for mode "wait" stop after the visibility check, for
// mode "text" (text: the most characters) read its visible text (a field:
// its value) after the visibility check.
// Stability costs a frame only when something may move the element: the
// scroll into view moved it, an animation or transition runs on it or an
// ancestor, or the click asks for it (click.stable: an earlier press of this
// click landed elsewhere); otherwise its box is taken as it is now, and the
// click's hit check (clicktrack.js armClick) stops a press that lands on
// anything else. A click given click ({token, cap, probe, stable}) arms that
// check and the measure of what it changes. Returns a JSON
// string {state, count, reason, x, y, field, text, length, truncated, password, cover}; state "ok" means go ahead.
const out = (o) => {
  // the match count is only worth its walk when the action fails
  if (o.count < 0) o.count = o.state === 'ok' ? 1 : matchCount(loc);
  return JSON.stringify(o);
};
const f = locate(loc);
if (!f.el) return out({ state: f.state, count: f.count, reason: f.reason || '' });
const el = f.el;
const count = f.count;
if (!el.isConnected) return out({ state: 'stale', count, reason: 'points at an element that is no longer in the page' });
// text of an attached, rendered element with no size and no text (a
// result field before it fills): "" is the truthful answer, at once
const emptyText = mode === 'text' && !(el.value || el.textContent);
if (!visible(el) && !(emptyText && rendered(el))) {
  let why = 'it has no size';
  if (!rendered(el)) why = 'it or an ancestor is display:none or visibility:hidden';
  return out({ state: 'hidden', count, reason: 'the element is not visible: ' + why });
}
if (mode === 'wait') return out({ state: 'ok', count });
if (mode === 'text') {
  // text is the most characters to return; innerText leaves out what is
  // not rendered (display:none, visibility:hidden, collapsed whitespace)
  const tg = el.localName;
  const t = (el.getAttribute('type') || '').toLowerCase();
  const field = tg === 'textarea' || tg === 'select' || (tg === 'input' && t !== 'button' && t !== 'submit' && t !== 'reset');
  const all = field ? String(el.value || '') : (el.innerText || '');
  // a password field's value never leaves the page
  if (tg === 'input' && t === 'password') return out({ state: 'ok', count, text: '', length: all.length, password: true });
  return out({ state: 'ok', count, text: all.slice(0, text), length: all.length, truncated: all.length > text });
}
if (isDisabled(el)) return out({ state: 'disabled', count, reason: 'the element is disabled' });

const tag = el.localName;
if (mode === 'type') {
  const t = (el.getAttribute('type') || 'text').toLowerCase();
  const textual = tag === 'textarea' || (tag === 'input' && !['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'file', 'hidden', 'range', 'color'].includes(t));
  if (!textual && !el.isContentEditable) return out({ state: 'noteditable', count, reason: 'the element is not a text field (' + describe(el) + ')' });
  if (el.readOnly) return out({ state: 'readonly', count, reason: 'the field is read-only' });
}

const r0 = rectOf(el);
if (el.scrollIntoViewIfNeeded) el.scrollIntoViewIfNeeded(true);
else el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
let r2 = rectOf(el);
if (!sameRect(r0, r2) || animating(el) || (click && click.stable)) {
  // Animations only advance with frames. The first frame may be the one
  // the box was read in (its animations already updated, its frame
  // callbacks still to run), and a tick without a frame (a starved or
  // hidden page) proves nothing: the box must hold over two real frames,
  // within at most five ticks.
  let frames = 0;
  for (let i = 0; i < 5; i++) {
    const r1 = r2;
    if (await frameTick()) frames++;
    if (!el.isConnected) return out({ state: 'stale', count, reason: 'points at an element that is no longer in the page' });
    r2 = rectOf(el);
    if (!sameRect(r1, r2)) return out({ state: 'unstable', count, reason: 'the element is still moving (animation)' });
    if (frames >= 2) break;
  }
}

if (mode === 'type') {
  el.focus();
  const root = el.getRootNode();
  if (root.activeElement !== el) return out({ state: 'unfocusable', count, reason: 'the element did not take focus' });
  const doc = el.ownerDocument;
  if (tag === 'input' || tag === 'textarea') {
    try { el.select(); } catch (e) { doc.execCommand('selectAll'); }
  } else {
    doc.getSelection().selectAllChildren(el);
  }
  const had = (tag === 'input' || tag === 'textarea') ? el.value !== '' : el.textContent !== '';
  if (text === '' && had) doc.execCommand('delete');
  let label = '';
  if (el.labels && el.labels.length) label = collapse(Array.from(el.labels).map((l) => l.textContent).join(' '));
  if (!label && el.getAttribute('aria-labelledby')) label = byIds(el, el.getAttribute('aria-labelledby'));
  const field = {
    type: tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : tag,
    name: el.getAttribute('name') || '',
    id: el.id || '',
    label: label.slice(0, 200),
    placeholder: el.getAttribute('placeholder') || '',
    autocomplete: el.getAttribute('autocomplete') || '',
    ariaLabel: el.getAttribute('aria-label') || '',
    testId: el.getAttribute('data-testid') || '',
  };
  return out({ state: 'ok', count, field });
}

// click: the centre of the part inside the viewport
const win = el.ownerDocument.defaultView;
const left = Math.max(r2.x, 0);
const right = Math.min(r2.x + r2.w, win.innerWidth);
const top = Math.max(r2.y, 0);
const bottom = Math.min(r2.y + r2.h, win.innerHeight);
if (right <= left || bottom <= top) return out({ state: 'offscreen', count, reason: 'the element stays outside the viewport after scrolling' });
let x = (left + right) / 2;
let y = (top + bottom) / 2;
const root = el.getRootNode();
const hit = (root.elementFromPoint ? root : el.ownerDocument).elementFromPoint(x, y);
if (!hit || !composedContains(el, hit)) {
  return out({ state: 'covered', count, reason: 'the element is covered by ' + describe(hit), cover: hit ? coverOf(hit) : null });
}
for (let w = win; w.frameElement; ) {
  const fe = w.frameElement;
  const fr = fe.getBoundingClientRect();
  const st = fe.ownerDocument.defaultView.getComputedStyle(fe);
  x += fr.left + fe.clientLeft + (parseFloat(st.paddingLeft) || 0);
  y += fr.top + fe.clientTop + (parseFloat(st.paddingTop) || 0);
  const pr = fe.getRootNode();
  const h = (pr.elementFromPoint ? pr : fe.ownerDocument).elementFromPoint(x, y);
  if (h !== fe) return out({ state: 'covered', count, reason: 'the frame holding the element is covered by ' + describe(h), cover: h ? coverOf(h) : null });
  w = fe.ownerDocument.defaultView;
}
// what the page shows right before the click, and the measure after it
if (click) armClick(el, click.token, click.cap, click.probe);
return out({ state: 'ok', count, x, y });
