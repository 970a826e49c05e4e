// notification.html: the approval popup (#connect/<id>, #confirm-transaction/<id>).
'use strict';

const target = location.hash.replace(/^#\/?/, '');
const requestId = target.split('/')[1] || '';

function dialog(title, ...children) {
  return h('div', { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'dialog-title', class: 'dialog' },
    h('h1', { id: 'dialog-title' }, title), ...children);
}

// answer tells the worker; on success the popup closes itself like MetaMask's.
async function answer(approve, error, buttons) {
  buttons.forEach((b) => { b.disabled = true; });
  const res = await send({ type: 'answer', id: requestId, approve });
  if (res && res.ok) return window.close();
  error.textContent = (res && res.error) || 'Something went wrong';
  buttons.forEach((b) => { b.disabled = false; });
}

function weiToEth(hex) {
  try {
    return formatBalance(hex || '0x0', 'ETH');
  } catch {
    return String(hex);
  }
}

function connect(req, state) {
  const error = h('p', { role: 'alert', testid: 'connect-error' });
  const ok = h('button', { testid: 'confirm-btn', onclick: () => answer(true, error, [ok, no]) }, 'Connect');
  const no = h('button', { testid: 'cancel-btn', onclick: () => answer(false, error, [ok, no]) }, 'Cancel');
  return dialog('Connect',
    h('p', {}, h('strong', {}, req.origin), ' wants to connect to your wallet.'),
    h('p', {}, 'Account 1 ', h('span', { class: 'mono' }, shorten(state.address))),
    h('p', {}, 'See your address, account balance and activity, and suggest transactions to approve.'),
    error, h('div', { class: 'row' }, no, ok));
}

function transaction(req, state) {
  const tx = req.params[0] || {};
  const error = h('p', { role: 'alert', testid: 'confirm-error' });
  const ok = h('button', { testid: 'confirm-footer-button', onclick: () => answer(true, error, [ok, no]) }, 'Confirm');
  const no = h('button', { testid: 'confirm-footer-cancel-button', onclick: () => answer(false, error, [ok, no]) }, 'Cancel');
  const row = (label, value) => h('div', { class: 'detail' }, h('dt', {}, label), h('dd', { class: 'mono' }, value));
  return dialog('Transaction request',
    h('p', {}, 'Request from ', h('strong', {}, req.origin)),
    h('dl', {},
      row('From', state.address),
      row('To', tx.to || 'New contract'),
      row('Amount', weiToEth(tx.value)),
      row('Network', state.network.name),
      tx.data && tx.data !== '0x' ? row('Data', tx.data) : null),
    error, h('div', { class: 'row' }, no, ok));
}

let shown = '';

async function render() {
  const state = await send({ type: 'state' });
  const key = `${state.unlocked}`;
  if (key === shown) return;
  shown = key;
  if (!state.unlocked) {
    history.replaceState(null, '', '#unlock');
    return show(dialog('Unlock', unlockForm(() => {
      history.replaceState(null, '', `#${target}`);
      render();
    })));
  }
  const req = requestId ? await send({ type: 'pending', id: requestId }) : null;
  if (!req) return show(dialog('No pending requests', h('p', {}, 'There is nothing to approve.')));
  show(req.kind === 'connect' ? connect(req, state) : transaction(req, state));
}

chrome.runtime.onMessage.addListener((msg) => {
  if (msg.type !== 'changed') return;
  const locked = location.hash === '#unlock';
  if (msg.unlocked === locked) {
    if (locked) history.replaceState(null, '', `#${target}`);
    render();
  }
});
render();
