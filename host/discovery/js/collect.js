// collect(opts, markEl): one walk over the composed DOM (document, open
// shadow roots, same-origin iframes) in pre-order. opts.ids > 0 gathers up to
// that many visible [data-testid] items; opts.nodes builds the trimmed tree.
// With opts.gen the tree's elements become the agent's refs: they are kept in
// globalThis.__mmcpRefs (this world only) under that gen, so a ref resolves to
// exactly that element later. Without it the refs stay as they are. mark is
// the index of the node that is markEl, or the element opts.mark ({gen,
// index}) names in the kept refs; -1 when it is not in the tree. Returns a
// JSON string {ids, nodes, mark}.
const ids = [];
const nodes = [];
const els = [];
const idLimit = opts.ids || 0;
const wantNodes = !!opts.nodes;
const keep = wantNodes && !!opts.gen;
let target = markEl || null;
if (!target && opts.mark) {
  const r = globalThis.__mmcpRefs;
  if (r && r.gen === opts.mark.gen) target = r.els[opts.mark.index] || null;
}
let mark = -1;

const walk = (el, path, hidden) => {
  let ctx = path;
  if (el.getAttribute('aria-hidden') === 'true') hidden = true;
  if (idLimit && ids.length < idLimit) {
    const tid = el.getAttribute('data-testid');
    if (tid !== null && visible(el)) {
      const tag = el.localName;
      const formy = tag === 'input' || tag === 'textarea' || tag === 'select';
      ids.push({ testId: tid, tag, text: formy ? '' : collapse(el.textContent).slice(0, 100), visible: true });
    }
  }
  if (wantNodes && !hidden) {
    const role = roleOf(el);
    if (KEPT[role] && rendered(el)) {
      const name = nameOf(el, role);
      const n = { role, name, path };
      if (role === 'dialog' || role === 'heading') {
        ctx = path.concat([role + ':' + name]);
        if (role === 'dialog') n.path = ctx;
      }
      if (ACTIONABLE[role]) n.disabled = isDisabled(el);
      if (role === 'checkbox' || role === 'radio' || role === 'switch') {
        const ac = boolAttr(el, 'aria-checked');
        n.checked = el.localName === 'input' ? !!el.checked : !!ac;
      }
      const ex = boolAttr(el, 'aria-expanded');
      if (ex !== null) n.expanded = ex;
      else if (role === 'combobox' && el.localName === 'select') n.expanded = false;
      if (el === target) mark = nodes.length;
      nodes.push(n);
      if (keep) els.push(el);
    }
  }
  for (const c of kids(el)) walk(c, ctx, hidden);
};
if (document.documentElement) walk(document.documentElement, [], false);
if (keep) globalThis.__mmcpRefs = { gen: opts.gen, els };
return JSON.stringify({ ids, nodes, mark });
