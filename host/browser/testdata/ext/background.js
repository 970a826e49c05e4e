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
