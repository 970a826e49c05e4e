// settle(probe, quietMs, maxMs, bgSince): waits until the page has been
// quiet (no DOM mutation, no URL change and, where the page has a
// background-request tracker, no request numbered after bgSince awaiting
// its reply) for quietMs, at most maxMs, and
// returns the URL and the probe's elements then, as JSON. A click whose handler
// awaits the wallet's background (lock, unlock) re-renders a moment after
// its events end: the screen after the click is read once that settles.
return new Promise((resolve) => {
  const start = performance.now();
  let last = start;
  let href = location.href;
  const obs = new MutationObserver(() => { last = performance.now(); });
  obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const tick = () => {
    const now = performance.now();
    if (location.href !== href) { href = location.href; last = now; }
    const bg = backgroundRequests(bgSince);
    if (bg && bg.pending > 0) last = now;
    if (now - last < quietMs && now - start < maxMs) { setTimeout(tick, 10); return; }
    obs.disconnect();
    resolve(JSON.stringify({ url: location.href, els: probeElements(probe) }));
  };
  setTimeout(tick, 10);
});
