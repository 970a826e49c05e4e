// visual(op, arg): the page side of mm_visual_check (see visual.go).
//   steady: turn animations, transitions and the caret off for the rest
//     of the document's life (removing the style again re-rasters the page
//     a little differently: the next capture would differ by a few
//     anti-aliased pixels), wait two frames the first time, wait for the
//     fonts, and measure the viewport and the boxes of the scope and mask
//     locators (document coordinates).
//   under: the elements that overlap each box (document coordinates).
const STYLE_ID = '__mmcp_visual_style';
const docBox = (r) => ({ x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height });
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
    width: innerWidth, height: innerHeight, dpr: devicePixelRatio, scrollX, scrollY,
    docWidth: Math.max(de.scrollWidth, innerWidth), docHeight: Math.max(de.scrollHeight, innerHeight),
    scope: arg.scope ? box(arg.scope) : null,
    masks: (arg.masks || []).map(box),
  };
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
