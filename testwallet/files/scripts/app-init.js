// Background service worker of the mmcp test wallet. It loads the fixture like
// a MetaMask test build, keeps the lock state, answers the pages and relays
// dapp requests. Requests that need the user's approval queue up and are shown
// in one notification.html popup, opened like MetaMask's: 360x620 at the top
// right of the last focused window, on bare notification.html (the page then
// routes to the request), closed from here once the queue is empty.
//
// Like MetaMask's test builds, the worker runs under LavaMoat scuttling: its
// code keeps its own reference to the extension API, and the global
// `chrome` is inaccessible, so code evaluated in the worker from outside
// (DevTools: `chrome.runtime.reload()`) throws. The whole worker is one
// block, so nothing it declares is reachable from such an evaluation.
'use strict';

importScripts('ecrecover.js'); // ecRecoverPersonal, for personal_ecRecover

{
const chrome = globalThis.chrome;
Object.defineProperty(globalThis, 'chrome', {
  get() { throw new Error('LavaMoat - property "chrome" of globalThis is inaccessible under scuttling mode'); },
  configurable: false,
});

// BACKGROUND_BUILD names this worker's build (settings shows it): an edit
// of it shows whether the background runs the new build after a reload.
const BACKGROUND_BUILD = 'testwallet-background-1';

const FIXTURE_URL = 'http://localhost:12345/state.json';
const DEFAULT_NETWORK = { name: 'Localhost 8545', rpcUrl: 'http://localhost:8545', chainId: '0x539', ticker: 'ETH' };
const VAULT_ITERATIONS = 10000;

let data = {};            // MetaMask-shaped state: {KeyringController, PreferencesController, ...}
let unlocked = false;
let connected = [];       // origins allowed to see the account
const pending = new Map(); // request id -> {kind, origin, params, resolve}, in arrival order
let popupId = null;        // the notification window
const NOTIFICATION_WIDTH = 360;
const NOTIFICATION_HEIGHT = 620;
// MetaMask closes its popup from the background once the approval settled,
// a moment after the click.
const POPUP_CLOSE_DELAY_MS = 600;
let nextId = 1;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const workerStarted = Date.now();

// ---- fixture and storage --------------------------------------------------

// FETCH_TIMEOUT_MS bounds one request for the state, as MetaMask's
// fetchWithTimeout does (30 s): a request the server holds (mmcp's gate,
// until the session's fixture server is up) is waited for; requests that
// fail at once are retried for 2 s.
const FETCH_TIMEOUT_MS = 30000;

async function fetchFixture() {
  const deadline = Date.now() + 2000;
  for (let attempt = 1; Date.now() < deadline; attempt++) {
    try {
      const res = await fetch(FIXTURE_URL, { cache: 'no-store', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (res.ok) return await res.json();
      console.warn(`fixture: HTTP ${res.status} (attempt ${attempt})`);
    } catch (err) {
      console.warn(`fixture: ${err.message} (attempt ${attempt})`);
    }
    await sleep(200);
  }
  return null;
}

// networkStore (fixture setting TestWalletSettings.networkStore) keeps the
// state in memory only, as a MetaMask test build's ReadOnlyNetworkStore
// does: nothing in chrome.storage.local; the background's
// stateHooks.metamaskGetState() answers the data without its meta (11.16.7
// writes the meta under a name it never sets) and
// getMostRecentPersistedState() the state loaded at start; a number there
// is the version the loaded state is migrated to, each migration logged as
// MetaMask's migrator logs it.
let memoryOnly = false;

function networkStore(fixture) {
  const target = ((fixture.data || {}).TestWalletSettings || {}).networkStore;
  if (!target) return false;
  const meta = { ...(fixture.meta || {}) };
  for (let v = (meta.version || 0) + 1; typeof target === 'number' && v <= target; v++) {
    console.info(`Running migration ${v}...`);
    console.info(`Migration ${v} complete`);
  }
  globalThis.stateHooks = {
    metamaskGetState: async () => ({ data, meta: undefined }),
    getMostRecentPersistedState: () => fixture,
  };
  return true;
}

async function save(fixture) {
  const meta = fixture.meta || {};
  await chrome.storage.local.clear();
  if (memoryOnly) return;
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
  const fromFixture = !!(fixture && fixture.data);
  if (fromFixture) {
    data = fixture.data;
    memoryOnly = networkStore(fixture);
    await save(fixture);
  } else {
    console.warn('fixture: not loaded, using stored state');
    data = await loadStored();
  }
  // The session storage outlives a restart of this worker (not a reload of
  // the extension): the wallet comes back unlocked, as MetaMask does with
  // the key it keeps there. A fixture read at the start is the whole state,
  // its connections included (MetaMask's PermissionController state).
  const session = await chrome.storage.session.get(['unlocked', 'connected']);
  unlocked = !!session.unlocked && !!vault();
  const subjects = Object.keys((data.PermissionController || {}).subjects || {});
  connected = fromFixture ? subjects : session.connected || subjects;
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
  const settings = data.TestWalletSettings || {};
  // TestWalletSettings are fixture settings of the test wallet itself
  // (tests only; a real MetaMask ignores the key): confirmationShows,
  // nextRelease and metamaskMarkup change what the notification popup shows,
  // closeAfterRelease how it closes (notification.js), networkStore where
  // the state is kept (above).
  return {
    hasVault: !!vault(), unlocked, address: selectedAddress(), network: network(),
    confirmationShows: settings.confirmationShows || null, nextRelease: !!settings.nextRelease,
    metamaskMarkup: !!settings.metamaskMarkup, closeAfterRelease: !!settings.closeAfterRelease,
  };
}

// ---- chain -------------------------------------------------------------------

// balances are the last balances read from each chain, by account (rpc):
// the home's first render shows the selected account's (lastBalance).
const balances = new Map();

// lastBalance is the selected account's balance as last read on the
// current chain, null before any read.
function lastBalance() {
  const address = selectedAddress();
  return (address && balances.get(`${network().rpcUrl}|${address.toLowerCase()}`)) || null;
}

async function rpc(method, params = []) {
  const { rpcUrl } = network();
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const body = await res.json();
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code, data: body.error.data });
  if (method === 'eth_getBalance' && typeof params[0] === 'string') balances.set(`${rpcUrl}|${params[0].toLowerCase()}`, body.result);
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
async function onboard(mnemonic, password, metametrics) {
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
    MetaMetricsController: { ...(data.MetaMetricsController || {}), participateInMetaMetrics: !!metametrics },
  };
  await save({ data, meta: { version: 74 } });
  await setUnlocked(true);
  return { ok: true, state: publicState() };
}

// ---- networks -------------------------------------------------------------------

// knownNetworks lists the networks of the state, the selected one first.
function knownNetworks() {
  const nc = data.NetworkController || {};
  const out = [network()];
  for (const [key, c] of Object.entries(nc.networkConfigurations || {})) {
    out.push({ id: c.id || key, name: c.nickname, rpcUrl: c.rpcUrl, chainId: c.chainId, ticker: c.ticker || 'ETH' });
  }
  for (const c of Object.values(nc.networkConfigurationsByChainId || {})) {
    for (const ep of c.rpcEndpoints || []) {
      out.push({ id: ep.networkClientId, name: c.name, rpcUrl: ep.url, chainId: c.chainId, ticker: c.nativeCurrency || 'ETH' });
    }
  }
  return out.filter((n) => n.rpcUrl && n.chainId);
}

const sameChain = (a, b) => String(a).toLowerCase() === String(b).toLowerCase();

// storeNetwork adds (or updates) a network configuration; select makes it
// the selected network.
async function storeNetwork(n, select = false) {
  const nc = { ...(data.NetworkController || {}) };
  const id = n.id || `custom-${n.chainId}`;
  nc.networkConfigurations = { ...(nc.networkConfigurations || {}),
    [id]: { id, chainId: n.chainId, rpcUrl: n.rpcUrl, nickname: n.name, ticker: n.ticker, rpcPrefs: {} } };
  if (select) {
    nc.selectedNetworkClientId = id;
    nc.providerConfig = { type: 'rpc', chainId: n.chainId, rpcUrl: n.rpcUrl, ticker: n.ticker, nickname: n.name, rpcPrefs: {}, id };
  }
  data = { ...data, NetworkController: nc };
  await save({ data, meta: { version: 74 } });
}

async function selectNetwork(n) {
  await storeNetwork(n, true);
  broadcast('chainChanged', n.chainId);
  chrome.runtime.sendMessage({ type: 'changed', unlocked }).catch(() => {});
}

// broadcast sends a provider event to every page with the content script.
async function broadcast(event, value) {
  for (const tab of await chrome.tabs.query({})) {
    chrome.tabs.sendMessage(tab.id, { type: 'event', event, value }).catch(() => {});
  }
}

// ---- dapp requests -------------------------------------------------------------

function rpcError(code, message) {
  return { error: { code, message } };
}

const userRejected = () => rpcError(4001, 'User rejected the request.');

// approval queues a request for the user and settles when they answer or
// close the popup.
function approval(kind, origin, params, extra = {}) {
  const id = String(nextId++);
  const result = new Promise((resolve) => pending.set(id, { id, kind, origin, params, resolve, ...extra }));
  showPopup();
  chrome.runtime.sendMessage({ type: 'queue' }).catch(() => {});
  return result;
}

// showPopup focuses the open popup or opens one at the top right of the
// last focused window. A window Chrome refuses (bounds less than half on
// screen) is logged; the request stays pending, as in MetaMask.
let opening = null; // the popup being opened
function showPopup() {
  if (!opening) opening = openPopup().finally(() => { opening = null; });
  return opening;
}

async function openPopup() {
  if (popupId !== null) {
    try {
      await chrome.windows.update(popupId, { focused: true });
      return;
    } catch {
      popupId = null;
    }
  }
  let left = 0;
  let top = 0;
  try {
    const last = await chrome.windows.getLastFocused();
    top = Math.max(last.top, 0);
    left = Math.max(last.left + (last.width - NOTIFICATION_WIDTH), 0);
  } catch (err) {
    console.warn('no focused window:', err.message);
  }
  try {
    const win = await chrome.windows.create({ type: 'popup', url: 'notification.html',
      width: NOTIFICATION_WIDTH, height: NOTIFICATION_HEIGHT, left, top });
    popupId = win.id;
  } catch (err) {
    console.error(`Could not open the notification window: ${err.message}`);
  }
}

chrome.windows.onRemoved.addListener((windowId) => {
  if (windowId !== popupId) return;
  popupId = null;
  // Closing the popup rejects everything it would have shown, but for
  // the requests already answered (a button that closes the window in its
  // click answers first).
  for (const [id, req] of [...pending.entries()]) if (!req.answered) settle(id, userRejected());
});

function settle(id, answer) {
  const req = pending.get(id);
  if (!req) return;
  pending.delete(id);
  req.resolve(answer);
  if (pending.size === 0 && popupId !== null) {
    const win = popupId;
    setTimeout(() => {
      if (pending.size === 0) chrome.windows.remove(win).catch(() => {});
    }, POPUP_CLOSE_DELAY_MS);
  }
}

function queue() {
  return [...pending.values()].map(({ id, kind, origin, params, network: n }) => ({ id, kind, origin, params, network: n }));
}

// utf8Hex is a personal_sign message as hex (it may come as text).
function utf8Hex(msg) {
  if (/^0x[0-9a-f]*$/i.test(msg)) return msg;
  return '0x' + Array.from(new TextEncoder().encode(msg), (b) => b.toString(16).padStart(2, '0')).join('');
}

// persistPermission keeps a connection in the persisted state, as
// MetaMask's PermissionController does, so that it outlives a reload of the
// extension and is part of the state a checkpoint saves.
async function persistPermission(origin, account) {
  const pc = data.PermissionController || (data.PermissionController = {});
  const subjects = pc.subjects || (pc.subjects = {});
  subjects[origin] = { origin, permissions: { eth_accounts: {
    id: crypto.randomUUID(), parentCapability: 'eth_accounts', invoker: origin, date: Date.now(),
    caveats: [{ type: 'restrictReturnedAccounts', value: [account] }],
  } } };
  const { meta } = await chrome.storage.local.get('meta');
  await save({ data, meta: meta || { version: 74 } });
}

// approve carries out an approved request; the node's unlocked account
// signs and sends.
async function approve(req) {
  const from = selectedAddress();
  switch (req.kind) {
    case 'connect':
      connected = [...new Set([...connected, req.origin])];
      await chrome.storage.session.set({ connected });
      await persistPermission(req.origin, from);
      return { result: [from] };
    case 'transaction':
      return { result: await rpc('eth_sendTransaction', [{ ...(req.params[0] || {}), from }]) };
    case 'personal_sign':
      return { result: await rpc('eth_sign', [from, utf8Hex(req.params[0])]) };
    case 'signTypedData_v4': {
      const typed = typeof req.params[1] === 'string' ? JSON.parse(req.params[1]) : req.params[1];
      return { result: await rpc('eth_signTypedData_v4', [from, typed]) };
    }
    case 'switchChain':
      await selectNetwork(req.network);
      return { result: null };
    default:
      throw new Error(`unknown request ${req.kind}`);
  }
}

async function answerApproval(id, ok) {
  const req = pending.get(id);
  if (!req) return { ok: false, error: 'This request is no longer pending' };
  if (!ok) {
    settle(id, userRejected());
    return { ok: true };
  }
  if (!unlocked) return { ok: false, error: 'Wallet is locked' };
  req.answered = true; // settled below, even when the popup closes meanwhile
  if (req.kind === 'addChain') {
    // MetaMask adds the network, then asks to switch to it as a second
    // confirmation in the same popup; the add request settles with it.
    await storeNetwork(req.network);
    approval('switchChain', req.origin, [{ chainId: req.network.chainId }], { network: req.network })
      .then((answer) => req.resolve(answer.error ? { result: null } : answer));
    pending.delete(id);
    return { ok: true };
  }
  try {
    settle(id, await approve(req));
    return { ok: true };
  } catch (err) {
    settle(id, rpcError(err.code || -32603, err.message));
    return { ok: false, error: err.message };
  }
}

// addChainRequest checks a wallet_addEthereumChain request and its RPC
// endpoint (the node must answer with the chain id) like MetaMask does.
async function addChainRequest(origin, params) {
  const p = params[0] || {};
  const chainId = String(p.chainId || '').toLowerCase();
  if (!/^0x[0-9a-f]+$/.test(chainId)) return rpcError(-32602, `Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received: ${p.chainId}`);
  const rpcUrl = (p.rpcUrls || [])[0];
  if (!rpcUrl) return rpcError(-32602, 'Expected an array with at least one valid string HTTPS url \'rpcUrls\'');
  const known = knownNetworks().find((n) => sameChain(n.chainId, chainId));
  if (known && sameChain(network().chainId, chainId)) return { result: null };
  const n = known || { chainId, rpcUrl, name: p.chainName || rpcUrl, ticker: (p.nativeCurrency || {}).symbol || 'ETH' };
  try {
    const res = await fetch(rpcUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
    const body = await res.json();
    if (!sameChain(body.result, chainId)) return rpcError(-32603, `Chain ID returned by RPC URL ${rpcUrl} does not match ${chainId}`);
  } catch (err) {
    return rpcError(-32603, `Request for method 'eth_chainId on ${rpcUrl} failed`);
  }
  if (known) return approval('switchChain', origin, params, { network: n });
  return approval('addChain', origin, params, { network: n });
}

function switchChainRequest(origin, params) {
  const chainId = String((params[0] || {}).chainId || '').toLowerCase();
  if (sameChain(network().chainId, chainId)) return { result: null };
  const n = knownNetworks().find((k) => sameChain(k.chainId, chainId));
  if (!n) return rpcError(4902, `Unrecognized chain ID "${chainId}". Try adding the chain using wallet_addEthereumChain first.`);
  return approval('switchChain', origin, params, { network: n });
}

async function dappRequest(origin, method, params = []) {
  const isConnected = connected.includes(origin) && !!selectedAddress();
  const authorized = (address) => isConnected && (!address || sameChain(address, selectedAddress()));
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
    case 'personal_sign':
      if (!authorized(params[1])) return rpcError(4100, 'The requested account has not been authorized by the user.');
      return approval('personal_sign', origin, params);
    case 'eth_signTypedData_v4':
      if (!authorized(params[0])) return rpcError(4100, 'The requested account has not been authorized by the user.');
      return approval('signTypedData_v4', origin, params);
    case 'personal_ecRecover':
      try {
        return { result: ecRecoverPersonal(utf8Hex(String(params[0])), String(params[1])) };
      } catch (err) {
        return rpcError(-32602, err.message);
      }
    case 'wallet_addEthereumChain':
      return addChainRequest(origin, params);
    case 'wallet_switchEthereumChain':
      return switchChainRequest(origin, params);
    default:
      try {
        return { result: await rpc(method, params) };
      } catch (err) {
        return rpcError(err.code || -32603, err.message);
      }
  }
}

// ---- messages --------------------------------------------------------------------

// appState is what the UI's getCleanAppState needs, in one trip: the state
// and the approval queue as they are now, and the account's balance on the
// chain (null when the chain does not answer).
async function appState() {
  // appStateAfterMs (fixture setting TestWalletSettings.appStateAfterMs):
  // the app state answers only that long after the background started, as
  // a real MetaMask's does once its background has initialized, while its
  // screen already shows.
  const wait = workerStarted + (((data.TestWalletSettings || {}).appStateAfterMs) || 0) - Date.now();
  if (wait > 0) await sleep(wait);
  const state = publicState();
  const q = queue();
  let balance = null;
  if (state.address) {
    try {
      balance = await rpc('eth_getBalance', [state.address, 'latest']);
    } catch {
      balance = null;
    }
  }
  return { state, queue: q, balance };
}

async function handle(msg, sender) {
  await ready;
  switch (msg.type) {
    case 'state':
      return { ...publicState(), lastBalance: lastBalance(), build: BACKGROUND_BUILD };
    case 'unlock':
      return unlock(msg.password);
    case 'lock':
      await setUnlocked(false);
      return publicState();
    case 'onboard':
      return onboard(msg.mnemonic || '', msg.password, msg.metametrics);
    case 'rpc':
      try {
        return { result: await rpc(msg.method, msg.params || []) };
      } catch (err) {
        return { error: err.message };
      }
    case 'queue':
      return queue();
    case 'appState':
      return appState();
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
}
