// coverOf and centreCover: what covers a point of the page. Pasted after
// lib.js and dialoglike.js; declares functions only.

// coverOf describes hit, the element over a target's click point: hit,
// its ancestors up to the body ({tag, testId, class, role, busy}, innermost
// first), its outermost dialog-like ancestor (dialogLike; within: "" when
// it is hit; boxed: there is one), and a close control inside that one.
function coverOf(hit) {
  const chain = [];
  let box = null;
  for (let n = hit; n && n.nodeType === 1 && n.localName !== 'body' && n.localName !== 'html' && chain.length < 12; n = composedParent(n)) {
    const cls = typeof n.className === 'string' ? n.className : '';
    const role = n.getAttribute('role') || '';
    chain.push({ tag: n.localName, testId: n.getAttribute('data-testid') || '', class: cls.slice(0, 200), role, busy: n.getAttribute('aria-busy') === 'true' });
    if (dialogLike(n)) box = n;
  }
  const close = { testId: '', selector: '' };
  if (box) {
    const sels = ['[data-testid*="close" i]', '[aria-label="Close" i]', '[aria-label*="close" i]', 'button[class*="close" i]'];
    let c = null;
    for (const s of sels) {
      for (const e of box.querySelectorAll(s)) if (visible(e)) { c = e; break; }
      if (c) break;
    }
    if (c) {
      const tid = c.getAttribute('data-testid');
      if (tid) close.testId = tid;
      else {
        const btid = box.getAttribute('data-testid');
        const bcls = typeof box.className === 'string' ? box.className.trim().split(/\s+/)[0] : '';
        const scope = btid ? '[data-testid="' + btid + '"] ' : bcls ? '.' + bcls + ' ' : '';
        const al = c.getAttribute('aria-label');
        close.selector = scope + (al ? c.localName + '[aria-label="' + al + '"]' : c.localName + '.' + String(c.className).trim().split(/\s+/).join('.'));
      }
    }
  }
  let within = '';
  if (box && box !== hit) {
    within = box.localName + (box.id ? '#' + box.id : '');
    if (typeof box.className === 'string' && box.className.trim()) within += '.' + box.className.trim().split(/\s+/).slice(0, 3).join('.');
    const btid = box.getAttribute('data-testid');
    if (btid) within += '[data-testid="' + btid + '"]';
  }
  return { hit: describe(hit), within, chain, close, boxed: !!box };
}

// centreCover is coverOf the element at the viewport's centre when it is
// part of a dialog-like box (see coverOf's within), else null: a modal or
// popover left over the screen.
function centreCover() {
  const hit = document.elementFromPoint(innerWidth / 2, innerHeight / 2);
  if (!hit) return null;
  const c = coverOf(hit);
  return c.boxed ? c : null;
}
