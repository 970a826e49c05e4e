// after(token, probe): what click token changed (see clicktrack.js): the
// measure taken once the click ran, taken now when it has not been yet.
// Without the click's state (the click loaded a new document) only
// window.closed, the new URL and the probe's elements (name -> selector,
// may be null) are known. Returns a JSON string.
const c = globalThis.__mmcpClick;
if (c && c.token === token) {
  return finishClick(c);
}
const elsAfter = probe && !window.closed ? probeElements(probe) : null;
return JSON.stringify({ token, closed: window.closed, known: false, urlAfter: location.href, elsAfter });
