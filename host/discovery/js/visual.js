// visual(op, arg): the page side of mm_visual_check (see visual.go).
//   steady: turn animations, transitions and the caret off for the rest
//     of the document's life (removing the style again re-rasters the page
//     a little differently: the next capture would differ by a few
//     anti-aliased pixels), wait two frames the first time, wait for the
//     fonts, and measure the viewport and the boxes of the scope and mask
//     locators (document coordinates).
//   unscroll: put back what steady scrolled to the top.
//   under: the elements that overlap each box (document coordinates).
const STYLE_ID = '__mmcp_visual_style';
const docBox = (r) => ({ x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height });
// A mask preset (discovery.MaskPreset, WalletPreset in preset.go): texts
// by what they say, elements by a selector.
// lineOf is the element whose box bounds what a text's width moves: the
// text's element, or, when it is inline or an item of a flex or grid
// row, the row it sits in; item is that row's child holding the text.
const lineOf = (el) => {
  let item = el;
  let c = el;
  while (c.parentElement && c.parentElement !== document.body) {
    const d = getComputedStyle(c).display;
    const pd = getComputedStyle(c.parentElement).display;
    if (!d.startsWith('inline') && !/flex|grid/.test(pd)) break;
    item = c;
    c = c.parentElement;
  }
  return { line: c, item };
};
const presetMasks = (preset) => {
  const texts = preset.texts.map((t) => [t.kind, new RegExp(t.pattern, 'g')]);
  const out = [];
  const seen = new Set();
  const add = (kind, r, text, tid) => {
    if (r.width <= 0 || r.height <= 0) return;
    const b = docBox(r);
    const key = kind + ':' + [b.x, b.y, b.width, b.height].map(Math.round).join(',');
    if (seen.has(key)) return;
    seen.add(key);
    const m = { kind, box: b };
    if (text) m.text = text.slice(0, 80);
    if (tid) m.testId = tid;
    out.push(m);
  };
  const tw = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let n = tw.nextNode(); n; n = tw.nextNode()) {
    const t = n.data;
    if (!t.trim() || !n.parentElement || !visible(n.parentElement)) continue;
    for (const [kind, re] of texts) {
      re.lastIndex = 0;
      for (let m = re.exec(t); m; m = re.exec(t)) {
        const lead = m[0].length - m[0].trimStart().length;
        const rg = document.createRange();
        rg.setStart(n, m.index + lead);
        rg.setEnd(n, m.index + m[0].length);
        const tr = rg.getBoundingClientRect();
        if (!tr.width) continue;
        // From the text to the end of its row: a wider text moves what
        // follows it there; a flex row's item bounds it vertically.
        const { line, item } = lineOf(n.parentElement);
        const lr = line.getBoundingClientRect();
        const ir = item === line ? tr : item.getBoundingClientRect();
        const left = Math.min(tr.left, ir.left);
        const top = Math.min(tr.top, ir.top);
        const bottom = Math.max(tr.bottom, ir.bottom);
        add(kind, new DOMRect(left, top, Math.max(lr.right, tr.right) - left, bottom - top), m[0].trim(),
          n.parentElement.closest('[data-testid]')?.getAttribute('data-testid'));
      }
    }
  }
  for (const el of preset.selector ? document.querySelectorAll(preset.selector) : []) {
    if (visible(el)) add('identicon', el.getBoundingClientRect(), '', el.getAttribute('data-testid'));
  }
  return out;
};
if (op === 'steady') {
  if (!document.getElementById(STYLE_ID)) {
    const st = document.createElement('style');
    st.id = STYLE_ID;
    st.textContent = '*,*::before,*::after{animation:none!important;transition:none!important;caret-color:transparent!important;scroll-behavior:auto!important}';
    (document.head || document.documentElement).appendChild(st);
    // Let the style reach a painted frame once; afterwards the capture's
    // own frame is enough (it recalculates style and paints first).
    await frameTick();
    await frameTick();
  }
  // A defined position: the window and every scrolled element at the
  // top, kept to put back after the capture (unscroll).
  const scrolled = [];
  if (arg.top) {
    const saved = [];
    const se = document.scrollingElement || document.documentElement;
    if (scrollX || scrollY) {
      saved.push({ el: null, x: scrollX, y: scrollY });
      scrolled.push({ what: 'window', x: scrollX, y: scrollY });
    }
    for (const el of document.querySelectorAll('*')) {
      if (el === se || (!el.scrollTop && !el.scrollLeft)) continue;
      saved.push({ el, x: el.scrollLeft, y: el.scrollTop });
      scrolled.push({ what: describe(el), x: el.scrollLeft, y: el.scrollTop });
    }
    for (const s of saved) {
      if (s.el) s.el.scrollTo(0, 0);
      else scrollTo(0, 0);
    }
    globalThis.__mmcpScrolled = saved;
    // the moved layers painted before the capture
    if (saved.length) await frameTick();
  }
  if (document.fonts && document.fonts.status !== 'loaded') {
    await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, 3000))]);
  }
  const box = (loc) => {
    const r = locate(loc);
    if (!r.el) return { missing: r.state || 'missing', reason: r.reason || '' };
    return docBox(r.el.getBoundingClientRect());
  };
  const de = document.documentElement;
  return {
    preset: arg.preset ? presetMasks(arg.preset) : [],
    scrolled,
    width: innerWidth, height: innerHeight, dpr: devicePixelRatio, scrollX, scrollY,
    docWidth: Math.max(de.scrollWidth, innerWidth), docHeight: Math.max(de.scrollHeight, innerHeight),
    scope: arg.scope ? box(arg.scope) : null,
    masks: (arg.masks || []).map(box),
  };
}
if (op === 'unscroll') {
  for (const s of globalThis.__mmcpScrolled || []) {
    if (!s.el) scrollTo(s.x, s.y);
    else if (s.el.isConnected) s.el.scrollTo(s.x, s.y);
  }
  globalThis.__mmcpScrolled = null;
  return null;
}
// under: for each region, the visible elements that overlap it and may
// be named (a testid or a kept role), in document order: their box, the
// index of the nearest such element holding them (-1), and what names
// them. Which of them hold changed pixels is decided in Go (visual.go).
const refs = globalThis.__mmcpRefs;
const refIndex = new Map();
if (refs && arg.gen && refs.gen === arg.gen) refs.els.forEach((e, i) => refIndex.set(e, i));
const items = [];
for (const el of document.querySelectorAll('[data-testid],button,a[href],input,select,textarea,[role],h1,h2,h3,h4,h5,h6,img[alt]')) {
  const role = roleOf(el);
  const tid = el.getAttribute('data-testid');
  if (tid === null && !KEPT[role]) continue;
  if (!visible(el)) continue;
  items.push({ el, role, tid, b: docBox(el.getBoundingClientRect()) });
}
const overlaps = (a, r) => Math.min(a.x + a.width, r.x + r.width) > Math.max(a.x, r.x) &&
  Math.min(a.y + a.height, r.y + r.height) > Math.max(a.y, r.y);
return arg.rects.map((r) => {
  const hits = items.filter((it) => overlaps(it.b, r)).slice(0, arg.limit);
  return hits.map((it) => {
    let parent = -1;
    for (let j = hits.length - 1; j >= 0; j--) {
      if (hits[j] !== it && hits[j].el.contains(it.el)) { parent = j; break; }
    }
    const e = { box: it.b, parent, role: it.role || 'generic',
      name: (KEPT[it.role] ? nameOf(it.el, it.role) : collapse(textOf(it.el, 0))).slice(0, 80) };
    if (it.tid) e.testId = it.tid;
    if (refIndex.has(it.el)) e.a11yRef = 'e' + (refIndex.get(it.el) + 1);
    return e;
  });
});
