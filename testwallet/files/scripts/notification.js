// notification.html: the approval popup. Like MetaMask's it opens on bare
// notification.html showing the loading fox, renders a moment later (React
// does) and routes to the oldest pending request:
//   #connect/<id>, then #connect/<id>/confirm-permissions   (two steps)
//   #confirm-transaction/<id>                                (transactions)
//   #confirm-transaction/<id>/signature-request              (signatures)
//   #confirmation/<id>                                       (add / switch network)
// The background closes the window once nothing is pending.
'use strict';

// RENDER_DELAY_MS imitates the time MetaMask's UI takes to render after the
// document loaded, so automation cannot rely on the window's appearance.
const RENDER_DELAY_MS = 800;

const routeOf = (req, step) => {
  switch (req.kind) {
    case 'connect':
      return step === 'confirm-permissions' ? `connect/${req.id}/confirm-permissions` : `connect/${req.id}`;
    case 'transaction':
      return `confirm-transaction/${req.id}`;
    case 'personal_sign':
    case 'signTypedData_v4':
      return `confirm-transaction/${req.id}/signature-request`;
    default:
      return `confirmation/${req.id}`;
  }
};

const currentRoute = () => location.hash.replace(/^#\/?/, '');

function dialog(title, ...children) {
  return h('div', { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'dialog-title', class: 'dialog' },
    h('h1', { id: 'dialog-title' }, title), ...children);
}

// CLOSES_IN_CLICK are the requests whose Confirm / Reject (Sign / Reject)
// close the window inside the mouse-release handler when they are the last
// one pending, as MetaMask's transaction and personal_sign screens do: the
// page is gone before the release is acknowledged, so a driver waiting
// for that acknowledgement never gets it.
const CLOSES_IN_CLICK = new Set(['transaction', 'personal_sign']);

// closeAfterRelease (fixture setting TestWalletSettings.closeAfterRelease)
// is the other way a real MetaMask build was seen closing those windows:
// the release is answered, the button re-renders while the background
// settles the request (every 40 ms here), and the background closes the
// window once it is settled, while a driver may still be reading the page.
let closeAfterRelease = false;

// footer is MetaMask's page-container footer (or a confirmation page's).
function footer(req, { cancelId, cancelText, okId, okText, onOk }) {
  const error = h('p', { role: 'alert', testid: 'confirm-error' });
  const ok = h('button', { testid: okId, onclick: () => (onOk ? onOk() : answer(true)) }, okText);
  const no = h('button', { testid: cancelId, class: 'secondary', onclick: () => answer(false) }, cancelText);
  if (CLOSES_IN_CLICK.has(req.kind) && !onOk) {
    const closeInRelease = (approve) => (e) => {
      if (e.button !== 0 || ok.disabled || queueLength > 1) return;
      if (closeAfterRelease) {
        // the click answers the request; the button re-renders until the
        // background, the request settled, closes the window
        let n = 0;
        setInterval(() => { ok.textContent = 'Confirming' + '.'.repeat(++n % 4); }, 40);
        return;
      }
      ok.disabled = no.disabled = true;
      // the background settles the request; the window goes at once
      chrome.runtime.sendMessage({ type: 'answer', id: req.id, approve, closing: true }).catch(() => {});
      window.close();
    };
    ok.addEventListener('mouseup', closeInRelease(true));
    no.addEventListener('mouseup', closeInRelease(false));
  }
  // answer tells the worker; the background closes the popup when nothing
  // else is pending, else the page moves on to the next request.
  async function answer(approve) {
    ok.disabled = no.disabled = true;
    const res = await send({ type: 'answer', id: req.id, approve });
    if (res && res.ok) return render();
    error.textContent = (res && res.error) || 'Something went wrong';
    ok.disabled = no.disabled = false;
  }
  return [error, h('div', { class: 'row footer' }, no, ok)];
}

const pageFooter = (req, okText, extra = {}) => footer(req, {
  cancelId: 'page-container-footer-cancel', cancelText: extra.cancelText || 'Cancel',
  okId: 'page-container-footer-next', okText, onOk: extra.onOk,
});

const confirmationFooter = (req, okText) => footer(req, {
  cancelId: 'confirmation-cancel-button', cancelText: 'Cancel',
  okId: 'confirmation-submit-button', okText,
});

function weiToEth(hex) {
  try {
    return formatBalance(hex || '0x0', 'ETH');
  } catch {
    return String(hex);
  }
}

// detail is one labelled value; testid names the value for automation
// (mmcp's mm_confirmation reads confirm-* testids).
const detail = (label, value, testid) => h('div', { class: 'detail' }, h('dt', {}, label), h('dd', { class: 'mono', ...(testid ? { testid } : {}) }, value));

const originLine = (req) => h('p', {}, h('strong', { testid: 'confirm-origin' }, req.origin));

function connectChooseAccount(req, state) {
  const box = h('input', { type: 'checkbox', id: 'account-0', checked: true, testid: 'choose-account-list-0' });
  return dialog('Connect with MetaMask',
    originLine(req),
    h('p', {}, 'Select the account(s) to use on this site'),
    h('div', { class: 'row' }, box, h('label', { for: 'account-0' }, 'Account 1 ', h('span', { class: 'mono' }, shorten(state.address)))),
    h('p', {}, 'Only connect with sites you trust.'),
    ...pageFooter(req, 'Next', { onOk: () => go(routeOf(req, 'confirm-permissions')) }));
}

function connectPermissions(req, state) {
  return dialog('Connect to Account 1',
    h('p', {}, h('strong', { testid: 'confirm-origin' }, req.origin), ' ', h('span', { class: 'mono' }, shorten(state.address))),
    h('p', {}, 'Allow this site to:'),
    h('ul', {}, h('li', {}, 'See address, account balance, activity and suggest transactions to approve')),
    ...pageFooter(req, 'Confirm'));
}

// The fixture setting TestWalletSettings.metamaskMarkup renders the send and
// signature screens as MetaMask 11.16.7's do (its legacy confirmation
// page and signature request), without the confirm-* testids: what the
// real screens show is only in their classes, the action name is
// upper-cased by CSS, the amount follows a ticker avatar ("L" for a
// network without a logo), the recipient is shortened and a message sits
// behind its "Message:" row title.
function metamaskTransaction(req, state) {
  const tx = req.params[0] || {};
  const amount = weiToEth(tx.value).replace(/ ETH$/, '');
  return h('div', { class: 'page-container', testid: 'page-container' },
    h('div', { class: 'confirm-page-container-header' },
      h('div', { testid: 'network-display', class: 'network-display chip' }, h('span', { class: 'chip__label' }, state.network.name))),
    h('div', { class: 'sender-to-recipient' },
      h('div', { class: 'sender-to-recipient__party sender-to-recipient__party--sender' }, h('div', { class: 'sender-to-recipient__name' }, 'Account 1')),
      h('div', { class: 'sender-to-recipient__party sender-to-recipient__party--recipient' },
        h('div', { class: 'name name__missing' }, h('span', { class: 'name__icon' }), h('p', { class: 'name__value' }, tx.to ? shorten(tx.to) : 'New contract')))),
    h('div', { class: 'confirm-page-container-summary' },
      h('div', { class: 'site-origin confirm-page-container-summary__origin' }, h('bdi', {}, req.origin)),
      h('div', { class: 'confirm-page-container-summary__action' },
        h('span', { class: 'confirm-page-container-summary__action__name', style: 'text-transform: uppercase' }, 'Sending ETH')),
      h('div', { class: 'confirm-page-container-summary__title' }, h('h3', {},
        h('div', { class: 'currency-display-component', title: amount },
          h('div', { class: 'currency-display-component__prefix' }, h('div', { class: 'mm-avatar-network' }, 'L')),
          h('span', { class: 'currency-display-component__text' }, amount))))),
    ...pageFooter(req, 'Confirm', { cancelText: 'Reject' }));
}

function metamaskSignature(req) {
  return h('div', { class: 'request-signature__container' },
    h('div', { class: 'request-signature__body' },
      h('div', { class: 'request-signature__origin' }, h('div', { class: 'site-origin', title: req.origin }, h('span', { class: 'chip__label' }, req.origin))),
      h('h3', { class: 'request-signature__content__title' }, 'Signature request'),
      h('div', { class: 'request-signature__notice' }, 'You are signing:'),
      h('div', { class: 'request-signature__rows' }, h('div', { class: 'request-signature__row' },
        h('div', { class: 'request-signature__row-title' }, 'Message:'),
        h('div', { class: 'request-signature__row-value' }, hexToText(String(req.params[0])))))),
    ...pageFooter(req, 'Sign', { cancelText: 'Reject' }));
}

function transaction(req, state) {
  if (state.metamaskMarkup) return metamaskTransaction(req, state);
  const tx = req.params[0] || {};
  // A fixture's TestWalletSettings.confirmationShows makes the screen
  // show another recipient or amount than the dapp asked (tests of
  // mismatch detection); the transaction sent is still the dapp's.
  const lie = state.confirmationShows || {};
  return dialog('Sending ETH',
    originLine(req),
    h('dl', {},
      detail('From', state.address, 'confirm-from'),
      detail('To', lie.to || tx.to || 'New contract', 'confirm-to'),
      detail('Amount', weiToEth(lie.value || tx.value), 'confirm-amount'),
      detail('Network', state.network.name, 'confirm-network'),
      tx.data && tx.data !== '0x' ? detail('Data', tx.data, 'confirm-data') : null),
    ...(state.nextRelease ? nextReleaseFooter(req) : pageFooter(req, 'Confirm', { cancelText: 'Reject' })));
}

// nextReleaseFooter is the transaction footer of the wallet's "next
// release", as a fixture's TestWalletSettings.nextRelease asks (tests of
// flows a wallet release broke): the confirm button is renamed
// confirm-footer-button (as MetaMask 12 did) and moved out of the footer
// into an action bar of its own at the end of the dialog, so a flow that
// names it by its old testid, by a selector path through the footer or by
// its position beside Reject no longer finds it. Reject keeps its testid
// and stays in the footer.
function nextReleaseFooter(req) {
  const [error, row] = footer(req, {
    cancelId: 'page-container-footer-cancel', cancelText: 'Reject', okId: 'confirm-footer-button', okText: 'Confirm',
  });
  const bar = h('div', { class: 'row actions', testid: 'confirm-actions' });
  bar.append(row.querySelector('[data-testid="confirm-footer-button"]'));
  return [error, row, bar];
}

function hexToText(hex) {
  if (!/^0x([0-9a-f]{2})*$/i.test(hex)) return hex;
  const bytes = new Uint8Array(hex.slice(2).match(/../g)?.map((b) => parseInt(b, 16)) || []);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return hex;
  }
}

function signature(req, state) {
  const typed = req.kind === 'signTypedData_v4';
  if (state.metamaskMarkup && !typed) return metamaskSignature(req);
  let body;
  if (typed) {
    const raw = req.params[1];
    const data = typeof raw === 'string' ? JSON.parse(raw) : raw;
    body = h('pre', { class: 'mono message', testid: 'confirm-message' }, JSON.stringify(data.message, null, 2));
  } else {
    body = h('p', { class: 'message', testid: 'confirm-message' }, hexToText(String(req.params[0])));
  }
  return dialog('Signature request',
    originLine(req),
    h('p', {}, 'Account 1 ', h('span', { class: 'mono' }, shorten(state.address))),
    h('p', {}, 'Only sign this message if you fully understand the content and trust the requesting site.'),
    h('h2', {}, 'Message'), body,
    ...pageFooter(req, 'Sign', { cancelText: 'Reject' }));
}

function networkConfirmation(req) {
  const n = req.network || {};
  const rows = h('dl', {}, detail('Network name', n.name, 'confirm-network'), detail('Network URL', n.rpcUrl),
    detail('Chain ID', String(parseInt(n.chainId, 16)), 'confirm-chain-id'), detail('Currency symbol', n.ticker));
  if (req.kind === 'addChain') {
    return dialog('Allow this site to add a network?', originLine(req), rows,
      ...confirmationFooter(req, 'Approve'));
  }
  return dialog('Allow this site to switch the network?', originLine(req),
    h('p', {}, `This will switch the selected network within MetaMask to ${n.name}.`), rows,
    ...confirmationFooter(req, 'Switch network'));
}

function go(route) {
  history.replaceState(null, '', `#${route}`);
  render();
}

let shown = '';
let queueLength = 0; // the requests pending, as last rendered

async function render() {
  const state = await send({ type: 'state' });
  closeAfterRelease = !!state.closeAfterRelease;
  if (!state.unlocked) {
    if (shown === 'unlock') return;
    shown = 'unlock';
    history.replaceState(null, '', '#unlock');
    return show(dialog('Unlock', unlockForm(() => render())));
  }
  const queue = await send({ type: 'queue' });
  queueLength = queue.length;
  if (!queue.length) {
    shown = '';
    return;
  }
  const r = currentRoute();
  const req = queue.find((q) => r.split('/')[1] === q.id) || queue[0];
  let route = routeOf(req);
  if (req.kind === 'connect' && r === routeOf(req, 'confirm-permissions')) route = r;
  const key = `${route}|${queue.length}`;
  if (key === shown) return;
  shown = key;
  if (r !== route) history.replaceState(null, '', `#${route}`);
  let screen;
  switch (req.kind) {
    case 'connect':
      screen = route.endsWith('/confirm-permissions') ? connectPermissions(req, state) : connectChooseAccount(req, state);
      break;
    case 'transaction':
      screen = transaction(req, state);
      break;
    case 'personal_sign':
    case 'signTypedData_v4':
      screen = signature(req, state);
      break;
    default:
      screen = networkConfirmation(req);
  }
  const position = queue.length > 1 ? h('p', { class: 'queue' }, `${queue.indexOf(req) + 1} of ${queue.length}`) : null;
  show(...[position, screen].filter(Boolean));
}

chrome.runtime.onMessage.addListener((msg) => {
  if (msg.type === 'queue' || msg.type === 'changed') render();
});
setTimeout(render, RENDER_DELAY_MS);
