// backgroundRequests(since) asks the page's background-request tracker
// (bgtrack.js, in the main world) for its counts: {posted, pending},
// pending counting the requests numbered after since that await their
// reply; null when the page has no tracker or it started after the page's
// own scripts (it may have missed a port). Only declarations.
function backgroundRequests(since) {
  let r = null;
  const h = (e) => { r = e.detail; };
  document.addEventListener('__mmcp_bg!', h);
  document.dispatchEvent(new CustomEvent('__mmcp_bg?', { detail: String(since || 0) }));
  document.removeEventListener('__mmcp_bg!', h);
  if (typeof r !== 'string') return null;
  const [posted, pending, known] = r.split(' ').map(Number);
  return known === 1 ? { posted, pending } : null;
}
