// Opens the notification window when a page asks, the way a wallet opens its
// confirmation popup after a dapp request.
chrome.runtime.onMessage.addListener((msg, _sender, reply) => {
  if (msg && msg.type === 'open-notification') {
    chrome.windows.create({ url: 'notification.html', type: 'popup', width: 360, height: 600 });
    reply({ ok: true });
  }
});
