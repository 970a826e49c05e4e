// Runs in the page's main world: defines window.ethereum (EIP-1193, with
// chainChanged and accountsChanged events) and announces it over EIP-6963
// (on load and on every eip6963:requestProvider). Requests travel via window.postMessage to
// contentscript.js, which relays them to the service worker.
(() => {
  'use strict';
  if (window.ethereum && window.ethereum.isTestWallet) return;
  let nextId = 1;
  const waiting = new Map();
  const listeners = new Map();

  const emit = (event, value) => (listeners.get(event) || []).forEach((fn) => {
    try { fn(value); } catch (err) { console.error(err); }
  });

  window.addEventListener('message', (e) => {
    const msg = e.data;
    if (e.source !== window || !msg || msg.target !== 'testwallet-inpage') return;
    if (msg.event) {
      if (msg.event === 'chainChanged') ethereum.chainId = msg.value;
      emit(msg.event, msg.value);
      return;
    }
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) {
      w.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code, data: msg.error.data }));
      return;
    }
    if (w.method === 'eth_requestAccounts') emit('accountsChanged', msg.result);
    if (w.method === 'eth_chainId') ethereum.chainId = msg.result;
    w.resolve(msg.result);
  });

  const ethereum = {
    isMetaMask: true,
    isTestWallet: true,
    chainId: null,
    request({ method, params } = {}) {
      if (typeof method !== 'string') return Promise.reject(Object.assign(new Error('Invalid request'), { code: -32600 }));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { method, resolve, reject });
        window.postMessage({ target: 'testwallet-content', id, method, params: params || [] }, '*');
      });
    },
    enable() { return this.request({ method: 'eth_requestAccounts' }); },
    isConnected() { return true; },
    on(event, fn) { listeners.set(event, [...(listeners.get(event) || []), fn]); return this; },
    removeListener(event, fn) { listeners.set(event, (listeners.get(event) || []).filter((f) => f !== fn)); return this; },
  };
  window.ethereum = ethereum;
  window.dispatchEvent(new Event('ethereum#initialized'));

  const info = Object.freeze({
    uuid: crypto.randomUUID ? crypto.randomUUID() : '6b3d1b0a-0c1e-4b6e-9f1a-7e5a2d1c0b01',
    name: 'MetaMask',
    icon: 'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"%3E%3Ccircle cx="16" cy="16" r="15" fill="%23f6851b"/%3E%3C/svg%3E',
    rdns: 'io.metamask',
  });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider',
    { detail: Object.freeze({ info, provider: ethereum }) }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
})();
