// The dapp's requests: run in a web page's main world before the page's
// own scripts (Page.addScriptToEvaluateOnNewDocument), it wraps the
// request method of the wallet's injected provider (window.ethereum,
// however it is set) and of every EIP-6963 provider announced, and
// reports each request as the dapp made it and its answer through the
// __mmcpEth binding (Runtime.addBinding): {id, phase: call|result|error,
// method, params, origin, url, via, result|error, t}. The provider keeps
// its behaviour: the wrapper hands the dapp the original call's own
// promise, and a report that fails is dropped. Extension pages (the
// wallet's own, which LavaMoat may scuttle) are left alone.
//
// It also counts the dapp's reads in flight: the requests the wallet
// answers without its user. globalThis[Symbol.for('mmcp.provider.capture')]
// .answered(ms) resolves true once none is, one task after the last
// answer (the dapp's handlers of that answer ran, and a read they made is
// counted by then), or false after ms.
(() => {
  if (!/^(https?|file):$/.test(location.protocol)) return;
  const key = Symbol.for('mmcp.provider.capture');
  if (globalThis[key]) return;
  const reading = /^(eth_(chainId|accounts|blockNumber|call|estimateGas|gasPrice|feeHistory|maxPriorityFeePerGas|coinbase|syncing|get[A-Za-z]+)|net_[A-Za-z]+|web3_clientVersion|wallet_getPermissions|metamask_getProviderState)$/;
  let reads = 0;
  let waiters = [];
  const later = setTimeout;
  const tick = new MessageChannel();
  tick.port1.onmessage = () => {
    if (reads > 0) return;
    const w = waiters;
    waiters = [];
    w.forEach((f) => f(true));
  };
  const answered = (ms) => new Promise((resolve) => {
    if (reads === 0) {
      resolve(true);
      return;
    }
    waiters.push(resolve);
    later(() => resolve(false), ms);
  });
  Object.defineProperty(globalThis, key, { value: Object.freeze({ answered }) });
  const binding = '__mmcpEth';
  const doc = Math.random().toString(36).slice(2, 10);
  let seq = 0;
  const origin = () => (location.origin && location.origin !== 'null' ? location.origin : location.protocol + '//' + location.host);
  const report = (m) => {
    try {
      const b = globalThis[binding];
      if (typeof b === 'function') b(JSON.stringify(m));
    } catch {
      // never the dapp's problem
    }
  };
  const plain = (v) => {
    try {
      return v === undefined ? null : JSON.parse(JSON.stringify(v));
    } catch {
      return String(v);
    }
  };
  const errorOf = (e) => ({ code: typeof (e && e.code) === 'number' ? e.code : 0, message: String((e && e.message) || e) });
  const wrapped = new WeakSet();
  const wrap = (p, via) => {
    if (!p || (typeof p !== 'object' && typeof p !== 'function') || wrapped.has(p)) return;
    const orig = p.request;
    if (typeof orig !== 'function') return;
    wrapped.add(p);
    const request = function (args) {
      const id = `${doc}-${++seq}`;
      let method;
      let params;
      try {
        method = args && args.method;
        params = args && args.params;
      } catch {
        // a getter that throws: the original call says so
      }
      report({ id, phase: 'call', method: String(method), params: plain(params), origin: origin(), url: location.href, via, t: Date.now() });
      const read = reading.test(String(method));
      if (read) reads++;
      const done = () => {
        if (read && --reads === 0) tick.port2.postMessage(0);
      };
      let out;
      try {
        out = orig.apply(this, arguments);
      } catch (e) {
        report({ id, phase: 'error', error: errorOf(e), t: Date.now() });
        done();
        throw e;
      }
      if (out && typeof out.then === 'function') {
        out.then((r) => {
          report({ id, phase: 'result', result: plain(r), t: Date.now() });
          done();
        }, (e) => {
          report({ id, phase: 'error', error: errorOf(e), t: Date.now() });
          done();
        });
      } else {
        done();
      }
      return out;
    };
    try {
      Object.defineProperty(p, 'request', { value: request, configurable: true, writable: true, enumerable: false });
    } catch {
      wrapped.delete(p); // a frozen provider is left as it is
    }
  };
  // window.ethereum: wrapped when it is set (assignment), and as found.
  let current = window.ethereum;
  wrap(current, 'window.ethereum');
  try {
    const d = Object.getOwnPropertyDescriptor(window, 'ethereum');
    if (!d || d.configurable) {
      Object.defineProperty(window, 'ethereum', {
        configurable: true,
        enumerable: true,
        get() { return current; },
        set(v) { current = v; wrap(v, 'window.ethereum'); },
      });
    }
  } catch {
    // the property is the page's
  }
  const again = () => wrap(window.ethereum, 'window.ethereum');
  window.addEventListener('ethereum#initialized', again);
  document.addEventListener('DOMContentLoaded', again);
  // EIP-6963: this listener is added before the dapp's, so the provider is
  // wrapped before the dapp sees it.
  window.addEventListener('eip6963:announceProvider', (e) => {
    const d = e && e.detail;
    if (d && d.provider) wrap(d.provider, 'eip6963:' + String((d.info && d.info.rdns) || ''));
  });
})();
