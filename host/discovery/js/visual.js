// visual(op, arg): the page side of mm_visual_check (see visual.go).
//   steady: turn animations, transitions and the caret off for the rest
//     of the document's life (removing the style again re-rasters the page
//     a little differently: the next capture would differ by a few
//     anti-aliased pixels), wait two frames the first time, wait for the
//     fonts, and measure the viewport and the boxes of the scope and mask
//     locators (document coordinates).
//   under: name the elements under each box (document coordinates).
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
// under
const refs = globalThis.__mmcpRefs;
const refIndex = new Map();
if (refs && arg.gen && refs.gen === arg.gen) refs.els.forEach((e, i) => refIndex.set(e, i));
const items = [];
for (const el of document.querySelectorAll('[data-testid],button,a[href],input,select,textarea,[role],h1,h2,h3,h4,h5,h6,img[alt]')) {
  if (!visible(el)) continue;
  items.push({ el, b: docBox(el.getBoundingClientRect()) });
}
const overlap = (a, r) => Math.max(0, Math.min(a.x + a.width, r.x + r.width) - Math.max(a.x, r.x)) *
  Math.max(0, Math.min(a.y + a.height, r.y + r.height) - Math.max(a.y, r.y));
// innermost keeps the elements of hits that hold no other element of
// hits, the most covered first.
const innermost = (hits) => hits.filter((h) => !hits.some((o) => o !== h && h.el.contains(o.el)))
  .sort((a, b) => b.cover - a.cover);
return arg.rects.map((r) => {
  const area = Math.max(1, r.width * r.height);
  const hits = [];
  for (const it of items) {
    const o = overlap(it.b, r);
    if (!o) continue;
    // Under the region: mostly covered by it, or covering most of it.
    const cover = Math.max(o / Math.max(1, it.b.width * it.b.height), o / area);
    if (cover >= 0.5) hits.push({ el: it.el, cover });
  }
  const testIds = innermost(hits.filter((h) => h.el.hasAttribute('data-testid')))
    .slice(0, arg.max).map((h) => h.el.getAttribute('data-testid'));
  const elements = [];
  for (const h of innermost(hits.filter((h) => KEPT[roleOf(h.el)]))) {
    const role = roleOf(h.el);
    const e = { role, name: nameOf(h.el, role).slice(0, 80) };
    const tid = h.el.getAttribute('data-testid');
    if (tid) e.testId = tid;
    if (refIndex.has(h.el)) e.a11yRef = 'e' + (refIndex.get(h.el) + 1);
    elements.push(e);
    if (elements.length >= arg.max) break;
  }
  return { testIds, elements };
});
