// collect(opts): one walk over the composed DOM (document, open
// shadow roots, same-origin iframes) in pre-order. opts.ids > 0 gathers up to
// that many visible [data-testid] items; opts.nodes builds the trimmed tree.
// With opts.gen the tree's elements become the agent's refs: they are kept in
// globalThis.__mmcpRefs (this world only) under that gen, so a ref resolves to
// exactly that element later. Without it the refs stay as they are. mark is
// the index of the node that is the element opts.mark ({gen,
// index}) names in the kept refs, or in the refs they replaced (a step
// record's walk may run just after a snapshot replaced the refs its call
// used); -1 when it is not in the tree. Returns a
// JSON string {ids, nodes, mark}. opts.root (a selector) scopes the tree to
// the first match's subtree, its path starting with the dialog and heading
// labels above it; then root is "badselector" or "missing" when there is no
// such element.
//
// nodes is text, a node a line (joined by \n), far cheaper to build, send
// and decode on a big page than objects: its role, name and states, then
// its path's labels, separated by tabs (see treeNodes in treenodes.go). A
// name never holds a tab or a newline (collapse), nor does a role (its
// first word).
const ids = [];
const nodes = [];
const els = [];
const idLimit = opts.ids || 0;
const wantNodes = !!opts.nodes;
const keep = wantNodes && !!opts.gen;
let target = null;
if (opts.mark) {
  const r = globalThis.__mmcpRefs;
  const m = r && (r.gen === opts.mark.gen ? r : r.prev && r.prev.gen === opts.mark.gen ? r.prev : null);
  if (m) target = m.els[opts.mark.index] || null;
}
let mark = -1;

// path: the labels of the node's path, each after a tab
const walk = (el, path, hidden) => {
  // a walk for testids only ends with the last one
  if (!wantNodes && ids.length >= idLimit) return;
  let ctx = path;
  // most elements have no attributes: none is read then
  const bare = !el.hasAttributes();
  if (!bare && el.getAttribute('aria-hidden') === 'true') hidden = true;
  if (idLimit && ids.length < idLimit && !bare) {
    const tid = el.getAttribute('data-testid');
    if (tid !== null && visible(el)) {
      const tag = el.localName;
      const formy = tag === 'input' || tag === 'textarea' || tag === 'select';
      ids.push({ testId: tid, tag, text: formy ? '' : collapse(el.textContent).slice(0, 100), visible: true });
    }
  }
  if (wantNodes && !hidden) {
    const role = roleOf(el, bare);
    // A heading or status without a name tells the agent nothing: left out.
    const name = KEPT[role] && rendered(el) ? nameOf(el, role, bare) : null;
    if (name !== null && (name || !UNNAMED_DROPPED[role])) {
      if (role === 'dialog' || role === 'heading') ctx = path + '\t' + role + ':' + name;
      // states: D disabled, C/c checked or not, E/e expanded or not, S
      // selected. Default states are left out: disabled only when true,
      // a combobox's expanded only when true, a tab's selected only when
      // true.
      let st = '';
      if (ACTIONABLE[role] && isDisabled(el)) st += 'D';
      if (role === 'checkbox' || role === 'radio' || role === 'switch') {
        const ac = bare ? null : boolAttr(el, 'aria-checked');
        st += (el.localName === 'input' ? el.checked : ac) ? 'C' : 'c';
      }
      if (role === 'tab' && !bare && boolAttr(el, 'aria-selected')) st += 'S';
      const ex = bare ? null : boolAttr(el, 'aria-expanded');
      if (ex !== null && (ex || role !== 'combobox')) st += ex ? 'E' : 'e';
      if (el === target) mark = nodes.length;
      nodes.push(role + '\t' + name + '\t' + st + (role === 'dialog' ? ctx : path));
      if (keep) els.push(el);
    }
  }
  if (lightKids(el)) {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) walk(c, ctx, hidden);
  } else {
    for (const c of kids(el)) walk(c, ctx, hidden);
  }
};
let start = document.documentElement;
let startPath = '';
let startHidden = false;
if (opts.root) {
  const f = locate({ sel: opts.root });
  if (!f.el) return JSON.stringify({ root: f.state, reason: f.reason || '' });
  start = f.el;
  const above = [];
  for (let a = composedParent(start); a; a = composedParent(a)) {
    if (a.getAttribute('aria-hidden') === 'true') startHidden = true;
    const r = roleOf(a);
    if ((r === 'dialog' || r === 'heading') && rendered(a)) above.push(r + ':' + nameOf(a, r));
  }
  startPath = above.reverse().map((l) => '\t' + l).join('');
}
if (start) walk(start, startPath, startHidden);
if (keep) {
  const old = globalThis.__mmcpRefs;
  globalThis.__mmcpRefs = { gen: opts.gen, els, prev: old ? { gen: old.gen, els: old.els } : null };
}
return JSON.stringify({ ids, nodes: nodes.join('\n'), mark });
