// dialogLike: whether element n is a dialog-like box: role dialog,
// aria-modal, a modal/popover/overlay/dialog class, or fixed position.
// coverOf looks for one over a point, CentreBoxedJS at the viewport's
// centre. Declares one function only.
function dialogLike(n) {
  const cls = typeof n.className === 'string' ? n.className : '';
  let fixed = false;
  try { fixed = n.ownerDocument.defaultView.getComputedStyle(n).position === 'fixed'; } catch (e) { fixed = false; }
  return n.getAttribute('role') === 'dialog' || n.getAttribute('aria-modal') === 'true' || /modal|popover|overlay|dialog/i.test(cls) || fixed;
}
