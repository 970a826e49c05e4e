// The background-request tracker: run in an extension page's main world
// before the page's own scripts (Page.addScriptToEvaluateOnNewDocument), it
// counts the messages the page sends to the extension's background
// (posted) and keeps those still awaiting their reply (pending):
//   - chrome.runtime.sendMessage is pending until its promise settles or
//     its callback runs (the test wallet);
//   - a JSON-RPC request posted on a port of chrome.runtime.connect (an
//     object with an id and a method, or such an object under "data", as
//     MetaMask's multiplexed streams send them) is pending until a reply
//     with the same id (and stream name) comes back on that port, or the
//     port closes. Any other message posted on a port is counted as sent,
//     never as pending.
//
// Each message is numbered in the order it is sent (posted is the last
// number). mmcp's isolated world asks for the counts synchronously
// (bgquery.js): it dispatches "__mmcp_bg?" on the document with a number
// since as its detail, and the tracker answers with a "__mmcp_bg!" event
// whose detail is "posted pending known": pending counts the requests
// numbered after since that still await their reply (so a request left
// open long before, one the wallet answers only when the user acts, is
// not counted), and known is 1 when the tracker ran before the page's
// scripts, so that no port was opened unseen, and could wrap every port
// since. A page without chrome.runtime is left alone.
(() => {
  const rt = globalThis.chrome && globalThis.chrome.runtime;
  if (!rt || typeof rt.sendMessage !== 'function' || rt.__mmcpTracked) return;
  // pending: the numbers of the requests awaiting their reply.
  const st = { posted: 0, pending: new Set(), unknown: false };
  const early = document.readyState === 'loading' && !document.scripts.length;

  // set replaces obj[key] with fn, or throws when it did not take (a
  // read-only property ignores the assignment).
  const set = (obj, key, fn) => {
    obj[key] = fn;
    if (obj[key] !== fn) throw new Error('cannot wrap ' + key);
  };

  const send = rt.sendMessage;
  const sendTracked = function (...args) {
    const n = ++st.posted;
    st.pending.add(n);
    const settled = () => { st.pending.delete(n); };
    const last = args.length - 1;
    if (last >= 0 && typeof args[last] === 'function') {
      const cb = args[last];
      let once = false;
      args[last] = function (...r) {
        if (!once) { once = true; settled(); }
        return cb.apply(this, r);
      };
      try { return send.apply(this, args); } catch (e) { if (!once) { once = true; settled(); } throw e; }
    }
    let p;
    try { p = send.apply(this, args); } catch (e) { settled(); throw e; }
    if (p && typeof p.then === 'function') p.then(settled, settled); else settled();
    return p;
  };
  try { set(rt, 'sendMessage', sendTracked); } catch (e) { return; }

  // rpc names a JSON-RPC message: [key, isRequest], or null.
  const rpc = (msg) => {
    try { return rpcOf(msg); } catch (e) { return null; }
  };
  const rpcOf = (msg) => {
    if (!msg || typeof msg !== 'object') return null;
    let name = '';
    let d = msg;
    if (msg.data && typeof msg.data === 'object' && !('id' in msg)) { name = String(msg.name); d = msg.data; }
    if (d.id === undefined || d.id === null) return null;
    if (typeof d.method === 'string') return [name + ':' + d.id, true];
    if ('result' in d || 'error' in d) return [name + ':' + d.id, false];
    return null;
  };

  // track counts port's requests; a port it cannot wrap makes the counts
  // unknown from then on (the page's own use of the port goes on).
  const track = (port) => {
    try {
      wrapPort(port);
    } catch (e) {
      st.unknown = true;
    }
    return port;
  };
  const wrapPort = (port) => {
    if (!port || typeof port.postMessage !== 'function') return;
    // waiting: request key -> its number
    const waiting = new Map();
    const post = port.postMessage;
    set(port, 'postMessage', function (msg) {
      // Every message counts as sent: one that is not a JSON-RPC request
      // (a notification, a chunk of a larger message) may still lead to
      // a change; only a request can be awaited.
      const n = ++st.posted;
      const m = rpc(msg);
      if (m && m[1] && !waiting.has(m[0])) { waiting.set(m[0], n); st.pending.add(n); }
      return post.apply(this, arguments);
    });
    port.onMessage.addListener((msg) => {
      const m = rpc(msg);
      if (!m || m[1] || !waiting.has(m[0])) return;
      st.pending.delete(waiting.get(m[0]));
      waiting.delete(m[0]);
    });
    port.onDisconnect.addListener(() => {
      for (const n of waiting.values()) st.pending.delete(n);
      waiting.clear();
    });
  };
  const connect = rt.connect;
  if (typeof connect === 'function') {
    try {
      set(rt, 'connect', function (...args) { return track(connect.apply(this, args)); });
    } catch (e) {
      st.unknown = true;
    }
  }
  try { Object.defineProperty(rt, '__mmcpTracked', { value: true }); } catch (e) { /* frozen */ }

  document.addEventListener('__mmcp_bg?', (e) => {
    const since = Number(e.detail) || 0;
    let pending = 0;
    for (const n of st.pending) if (n > since) pending++;
    document.dispatchEvent(new CustomEvent('__mmcp_bg!', { detail: st.posted + ' ' + pending + ' ' + (early && !st.unknown ? 1 : 0) }));
  });
})();
