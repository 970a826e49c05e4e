// probeElements reports, for each name of els (name -> selector), whether
// the document has a match and the first match's text: what a state
// provider's DetectScreen reads (see package browser's state probe).
function probeElements(els) {
  const out = {};
  for (const name in els) {
    let el = null;
    try { el = document.querySelector(els[name]); } catch (e) { el = null; }
    out[name] = el ? { present: true, text: (el.innerText || el.textContent || '').trim().slice(0, 200) } : { present: false };
  }
  return out;
}
