// Background service worker of the mmcp test wallet. It loads the fixture like
// a MetaMask test build, keeps the lock state, answers the pages and relays
// dapp requests (opening notification.html popups for approvals).
'use strict';

const FIXTURE_URL = 'http://localhost:12345/state.json';
const DEFAULT_NETWORK = { name: 'Localhost 8545', rpcUrl: 'http://localhost:8545', chainId: '0x539', ticker: 'ETH' };
const VAULT_ITERATIONS = 10000;

let data = {};            // MetaMask-shaped state: {KeyringController, PreferencesController, ...}
let unlocked = false;
let connected = [];       // origins allowed to see the account
const pending = new Map(); // request id -> {kind, origin, params, windowId, resolve}
let nextId = 1;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- fixture and storage --------------------------------------------------

async function fetchFixture() {
  const deadline = Date.now() + 2000;
  for (let attempt = 1; Date.now() < deadline; attempt++) {
    try {
      const res = await fetch(FIXTURE_URL, { cache: 'no-store', signal: AbortSignal.timeout(Math.max(100, deadline - Date.now())) });
      if (res.ok) return await res.json();
      console.warn(`fixture: HTTP ${res.status} (attempt ${attempt})`);
    } catch (err) {
      console.warn(`fixture: ${err.message} (attempt ${attempt})`);
    }
    await sleep(200);
  }
  return null;
}

async function save(fixture) {
  const meta = fixture.meta || {};
  await chrome.storage.local.clear();
  if (meta.storageKind === 'split') await chrome.storage.local.set({ ...fixture.data, meta });
  else await chrome.storage.local.set({ data: fixture.data, meta });
}

async function loadStored() {
  const all = await chrome.storage.local.get(null);
  if (all.data && typeof all.data === 'object') return all.data;
  const { meta, ...rest } = all;
  return rest;
}

async function init() {
  const fixture = await fetchFixture();
  if (fixture && fixture.data) {
    data = fixture.data;
    await save(fixture);
  } else {
    console.warn('fixture: not loaded, using stored state');
    data = await loadStored();
  }
  const session = await chrome.storage.session.get(['unlocked', 'connected']);
  unlocked = !!session.unlocked && !!vault();
  const subjects = Object.keys((data.PermissionController || {}).subjects || {});
  connected = session.connected || subjects;
}

const ready = init().catch((err) => console.error('init:', err));

// ---- reading the MetaMask state --------------------------------------------

function vault() {
  return (data.KeyringController || {}).vault || '';
}

function selectedAddress() {
  const prefs = data.PreferencesController || {};
  if (prefs.selectedAddress) return prefs.selectedAddress;
  const accounts = Object.values(((data.AccountsController || {}).internalAccounts || {}).accounts || {});
  if (accounts.length && accounts[0].address) return accounts[0].address;
  return Object.keys(prefs.identities || {})[0] || '';
}

function network() {
  const nc = data.NetworkController || {};
  const p = nc.providerConfig;
  if (p && p.rpcUrl) return { name: p.nickname || DEFAULT_NETWORK.name, rpcUrl: p.rpcUrl, chainId: p.chainId || DEFAULT_NETWORK.chainId, ticker: p.ticker || 'ETH' };
  const found = [];
  for (const [key, c] of Object.entries(nc.networkConfigurations || {})) {
    found.push({ id: c.id || key, name: c.nickname, rpcUrl: c.rpcUrl, chainId: c.chainId, ticker: c.ticker });
  }
  for (const c of Object.values(nc.networkConfigurationsByChainId || {})) {
    for (const ep of c.rpcEndpoints || []) {
      found.push({ id: ep.networkClientId, name: c.name, rpcUrl: ep.url, chainId: c.chainId, ticker: c.nativeCurrency });
    }
  }
  const pick = found.find((n) => n.id === nc.selectedNetworkClientId && n.rpcUrl) || found.find((n) => n.rpcUrl);
  if (!pick) return { ...DEFAULT_NETWORK };
  return { name: pick.name || DEFAULT_NETWORK.name, rpcUrl: pick.rpcUrl, chainId: pick.chainId || DEFAULT_NETWORK.chainId, ticker: pick.ticker || 'ETH' };
}

function publicState() {
  return { hasVault: !!vault(), unlocked, address: selectedAddress(), network: network() };
}

// ---- chain -------------------------------------------------------------------

async function rpc(method, params = []) {
  const res = await fetch(network().rpcUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const body = await res.json();
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code, data: body.error.data });
  return body.result;
}

// ---- vault (@metamask/browser-passworder format) ------------------------------

const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const unb64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function deriveKey(password, salt, iterations) {
  const base = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base,
    { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

async function decryptVault(password, vaultJSON) {
  const v = JSON.parse(vaultJSON);
  const iterations = (v.keyMetadata && v.keyMetadata.params && v.keyMetadata.params.iterations) || 10000;
  const key = await deriveKey(password, unb64(v.salt), iterations);
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: unb64(v.iv) }, key, unb64(v.data));
  return JSON.parse(new TextDecoder().decode(plain));
}

async function encryptVault(password, keyrings) {
  const salt = crypto.getRandomValues(new Uint8Array(32));
  const iv = crypto.getRandomValues(new Uint8Array(16));
  const key = await deriveKey(password, salt, VAULT_ITERATIONS);
  const enc = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(JSON.stringify(keyrings)));
  return JSON.stringify({ data: b64(enc), iv: b64(iv), salt: b64(salt),
    keyMetadata: { algorithm: 'PBKDF2', params: { iterations: VAULT_ITERATIONS } } });
}

// setUnlocked also tells open pages, so a page showing the unlock form
// follows an unlock done in another page (and the other way round).
async function setUnlocked(value) {
  unlocked = value;
  await chrome.storage.session.set({ unlocked: value });
  chrome.runtime.sendMessage({ type: 'changed', unlocked: value }).catch(() => {});
}

async function unlock(password) {
  try {
    const keyrings = await decryptVault(password, vault());
    if (!Array.isArray(keyrings)) throw new Error('vault is not a keyring list');
  } catch (err) {
    return { ok: false, error: 'Incorrect password' };
  }
  await setUnlocked(true);
  return { ok: true, state: publicState() };
}

// Onboarding derives no keys: the account is the node's first account.
async function onboard(mnemonic, password) {
  let accounts;
  try {
    accounts = await rpc('eth_accounts');
  } catch (err) {
    return { ok: false, error: `Could not reach ${network().rpcUrl}: ${err.message}` };
  }
  if (!accounts || !accounts.length) return { ok: false, error: 'The node has no accounts' };
  const keyrings = [{ type: 'HD Key Tree', data: { mnemonic, numberOfAccounts: 1, hdPath: "m/44'/60'/0'/0" } }];
  data = {
    ...data,
    KeyringController: { vault: await encryptVault(password, keyrings) },
    PreferencesController: { ...(data.PreferencesController || {}), selectedAddress: accounts[0] },
    OnboardingController: { completedOnboarding: true, firstTimeFlowType: mnemonic ? 'import' : 'create', seedPhraseBackedUp: true },
  };
  await save({ data, meta: { version: 74 } });
  await setUnlocked(true);
  return { ok: true, state: publicState() };
}

// ---- dapp requests -------------------------------------------------------------

function rpcError(code, message) {
  return { error: { code, message } };
}

// approval opens a notification popup and settles when the user answers or
// closes the window.
async function approval(kind, origin, params) {
  const id = String(nextId++);
  const result = new Promise((resolve) => pending.set(id, { kind, origin, params, resolve }));
  const url = chrome.runtime.getURL(`notification.html#${kind === 'connect' ? 'connect' : 'confirm-transaction'}/${id}`);
  const win = await chrome.windows.create({ type: 'popup', url, width: 360, height: 600 });
  const req = pending.get(id);
  if (req) req.windowId = win.id;
  return result;
}

chrome.windows.onRemoved.addListener((windowId) => {
  for (const [id, req] of pending) {
    if (req.windowId === windowId) settle(id, rpcError(4001, 'User rejected the request.'));
  }
});

function settle(id, answer) {
  const req = pending.get(id);
  if (!req) return;
  pending.delete(id);
  req.resolve(answer);
}

async function answerApproval(id, approve) {
  const req = pending.get(id);
  if (!req) return { ok: false, error: 'This request is no longer pending' };
  if (!approve) {
    settle(id, rpcError(4001, 'User rejected the request.'));
    return { ok: true };
  }
  if (!unlocked) return { ok: false, error: 'Wallet is locked' };
  if (req.kind === 'connect') {
    connected = [...new Set([...connected, req.origin])];
    await chrome.storage.session.set({ connected });
    settle(id, { result: [selectedAddress()] });
    return { ok: true };
  }
  try {
    const tx = { ...(req.params[0] || {}), from: selectedAddress() };
    const hash = await rpc('eth_sendTransaction', [tx]);
    settle(id, { result: hash });
    return { ok: true, hash };
  } catch (err) {
    settle(id, rpcError(err.code || -32603, err.message));
    return { ok: false, error: err.message };
  }
}

async function dappRequest(origin, method, params = []) {
  const isConnected = connected.includes(origin) && !!selectedAddress();
  switch (method) {
    case 'eth_chainId':
      return { result: network().chainId };
    case 'net_version':
      return { result: String(parseInt(network().chainId, 16)) };
    case 'eth_accounts':
      return { result: isConnected && unlocked ? [selectedAddress()] : [] };
    case 'eth_requestAccounts':
      if (isConnected && unlocked) return { result: [selectedAddress()] };
      if (!vault()) return rpcError(4100, 'The wallet is not set up yet.');
      return approval('connect', origin, params);
    case 'eth_sendTransaction':
      if (!isConnected) return rpcError(4100, 'The requested account has not been authorized by the user.');
      return approval('transaction', origin, params);
    default:
      try {
        return { result: await rpc(method, params) };
      } catch (err) {
        return rpcError(err.code || -32603, err.message);
      }
  }
}

// ---- messages --------------------------------------------------------------------

async function handle(msg, sender) {
  await ready;
  switch (msg.type) {
    case 'state':
      return publicState();
    case 'unlock':
      return unlock(msg.password);
    case 'lock':
      await setUnlocked(false);
      return publicState();
    case 'onboard':
      return onboard(msg.mnemonic || '', msg.password);
    case 'rpc':
      try {
        return { result: await rpc(msg.method, msg.params || []) };
      } catch (err) {
        return { error: err.message };
      }
    case 'approvals':
      // MetaMask's pendingApprovals, by the approval types it uses.
      return [...pending].map(([id, req]) => ({ id, origin: req.origin,
        type: req.kind === 'connect' ? 'wallet_requestPermissions' : 'transaction' }));
    case 'pending': {
      const req = pending.get(msg.id);
      return req ? { kind: req.kind, origin: req.origin, params: req.params } : null;
    }
    case 'answer':
      return answerApproval(msg.id, msg.approve);
    case 'dapp':
      return dappRequest(sender.origin || new URL(sender.url).origin, msg.method, msg.params);
    default:
      return rpcError(-32601, `unknown message ${msg.type}`);
  }
}

chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  handle(msg, sender).then(sendResponse, (err) => sendResponse(rpcError(-32603, err.message)));
  return true;
});
