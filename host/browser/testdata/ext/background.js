// The worker runs under LavaMoat scuttling, as MetaMask's test builds do:
// its code keeps its own reference to the extension API, and the global
// `chrome` is inaccessible, so `chrome.runtime.reload()` evaluated in the
// worker from DevTools throws. The whole worker is one block, so nothing
// it declares is reachable from such an evaluation.
{
const chrome = globalThis.chrome;
Object.defineProperty(globalThis, 'chrome', {
  get() { throw new Error('LavaMoat - property "chrome" of globalThis is inaccessible under scuttling mode'); },
  configurable: false,
});

// Opens the notification window when a page asks, the way a wallet opens its
// confirmation popup after a dapp request.
chrome.runtime.onMessage.addListener((msg, _sender, reply) => {
  if (msg && msg.type === 'open-notification') {
    chrome.windows.create({ url: 'notification.html', type: 'popup', width: 360, height: 600 });
    reply({ ok: true });
  }
  if (msg && msg.type === 'open-offscreen-notification') {
    // Far off screen: Chrome refuses the bounds, and the rejection goes
    // unhandled, as a wallet's would.
    chrome.windows.create({ url: 'notification.html', type: 'popup', width: 360, height: 620, left: 9000, top: 0 });
    reply({ ok: true });
  }
  if (msg && msg.type === 'log-benign') {
    // The lines every session of MetaMask's build prints.
    console.error("This browser doesn't support requestAnimationFrame. Make sure that you load a polyfill in older browsers.");
    console.error('Uncaught (in promise) Error: Could not establish connection. Receiving end does not exist.');
    reply({ ok: true });
  }
});

// A watch build's live reload (MetaMask's chromereload.js), on in a copy
// that sets LIVE_RELOAD: the extension restarts itself once its
// live-reload.txt no longer names the build this worker runs (BUILT), as
// a rebuild rewrites both.
const LIVE_RELOAD = false;
const BUILT = '1';
if (LIVE_RELOAD) setInterval(async () => {
  let text;
  try {
    text = await (await fetch(chrome.runtime.getURL('live-reload.txt'), { cache: 'no-store' })).text();
  } catch {
    return;
  }
  if (text !== BUILT) chrome.runtime.reload();
}, 100);
}
