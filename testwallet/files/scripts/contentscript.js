// Isolated-world relay between inpage.js (window.postMessage) and the
// service worker (chrome.runtime messages).
'use strict';
window.addEventListener('message', (e) => {
  const msg = e.data;
  if (e.source !== window || !msg || msg.target !== 'testwallet-content') return;
  const reply = (body) => window.postMessage({ target: 'testwallet-inpage', id: msg.id, ...body }, '*');
  chrome.runtime.sendMessage({ type: 'dapp', method: msg.method, params: msg.params })
    .then((res) => reply(res || { error: { code: -32603, message: 'No answer from the wallet' } }))
    .catch((err) => reply({ error: { code: -32603, message: err.message } }));
});

// Provider events from the service worker (chainChanged, accountsChanged).
chrome.runtime.onMessage.addListener((msg) => {
  if (msg && msg.type === 'event') {
    window.postMessage({ target: 'testwallet-inpage', event: msg.event, value: msg.value }, '*');
  }
});
