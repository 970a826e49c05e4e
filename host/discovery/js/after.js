// after(cap, probe): what the click changed, measured right after the
// mouse release against __mmcpBefore (kept by action.js right before it):
// window.closed, the URL before and after, the visible testids that
// appeared and disappeared (up to cap each, in document order, with their
// full counts), and the probe's elements (name -> selector, may be null)
// before and after. Without __mmcpBefore (the click loaded a new document)
// only the new URL and elements are known. Returns a JSON string.
const b = globalThis.__mmcpBefore;
globalThis.__mmcpBefore = null;
const elsAfter = probe && !window.closed ? probeElements(probe) : null;
if (window.closed || !b) return JSON.stringify({ closed: window.closed, known: false, urlAfter: location.href, elsAfter });
const a = visibleTestIds();
const diff = (x, y) => { const d = []; for (const id of x) if (!y.has(id)) d.push(id); return d; };
const appeared = diff(a, b.ids);
const disappeared = diff(b.ids, a);
return JSON.stringify({
  closed: false,
  known: true,
  urlBefore: b.href,
  urlAfter: location.href,
  appeared: appeared.slice(0, cap),
  appearedCount: appeared.length,
  disappeared: disappeared.slice(0, cap),
  disappearedCount: disappeared.length,
  elsBefore: b.els,
  elsAfter,
});
