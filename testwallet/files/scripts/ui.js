// Small helpers shared by home.html and notification.html.
'use strict';

// h builds an element: h('button', {testid: 'x', onclick}, 'Text', child...).
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'testid') el.setAttribute('data-testid', v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'value' || k === 'checked' || k === 'disabled') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c !== undefined && c !== null && c !== false) el.append(c);
  }
  return el;
}

// send asks the service worker; it answers once the fixture is loaded.
function send(msg) {
  return chrome.runtime.sendMessage(msg);
}

// show replaces the page content.
function show(...children) {
  const app = document.getElementById('app');
  app.replaceChildren(...children);
  const first = app.querySelector('[autofocus]');
  if (first) first.focus();
}

function shorten(address) {
  return address ? `${address.slice(0, 7)}...${address.slice(-5)}` : 'No account';
}

// formatBalance turns hex wei into "25 ETH" (up to 4 decimals, trailing zeros trimmed).
function formatBalance(hexWei, ticker) {
  const wei = BigInt(hexWei);
  const unit = 10n ** 18n;
  const frac = ((wei % unit) / 10n ** 14n).toString().padStart(4, '0').replace(/0+$/, '');
  return `${wei / unit}${frac ? '.' + frac : ''} ${ticker}`;
}

// unlockForm renders MetaMask's unlock screen and calls onUnlocked(state).
function unlockForm(onUnlocked) {
  const error = h('p', { testid: 'unlock-error', role: 'alert', hidden: true }, 'Incorrect password');
  const input = h('input', { id: 'password', type: 'password', testid: 'unlock-password', autocomplete: 'current-password', autofocus: true });
  const submit = h('button', { type: 'submit', testid: 'unlock-submit' }, 'Unlock');
  const form = h('form', {
    async onsubmit(e) {
      e.preventDefault();
      submit.disabled = true;
      const res = await send({ type: 'unlock', password: input.value });
      submit.disabled = false;
      if (res && res.ok) return onUnlocked(res.state);
      error.hidden = false;
      error.textContent = (res && res.error) || 'Incorrect password';
    },
  }, h('label', { for: 'password' }, 'Password'), input, error, submit);
  return h('main', { class: 'unlock-page' }, h('h1', {}, 'Welcome back!'), h('p', {}, 'The decentralized web awaits'), form);
}

// window.stateHooks.getCleanAppState is where MetaMask's UI (ui/index.js)
// exposes its Redux state and where MetaMask's own e2e tests and mmcp read
// it: `metamask` in the layout of MetaMask 11's default fixture.
const APPROVAL_TYPES = {
  connect: 'wallet_requestPermissions', transaction: 'transaction', personal_sign: 'personal_sign',
  signTypedData_v4: 'eth_signTypedData_v4', addChain: 'wallet_addEthereumChain', switchChain: 'wallet_switchEthereumChain',
};
window.stateHooks = {
  async getCleanAppState() {
    // One trip to the service worker: state, queue and balance.
    const { state, queue, balance } = await send({ type: 'appState' });
    const { address, network } = state;
    const accounts = {};
    if (address) accounts[address] = { address, balance: balance || null };
    const pendingApprovals = {};
    for (const req of queue || []) pendingApprovals[req.id] = { id: req.id, type: APPROVAL_TYPES[req.kind] || req.kind, origin: req.origin };
    return {
      metamask: {
        isUnlocked: !!state.unlocked,
        completedOnboarding: !!state.hasVault,
        internalAccounts: address
          ? { selectedAccount: 'account-1', accounts: { 'account-1': { id: 'account-1', address, type: 'eip155:eoa', metadata: { name: 'Account 1' } } } }
          : { selectedAccount: '', accounts: {} },
        providerConfig: { type: 'rpc', chainId: network.chainId, nickname: network.name, ticker: network.ticker, rpcUrl: network.rpcUrl },
        accounts,
        pendingApprovals,
      },
    };
  },
};
