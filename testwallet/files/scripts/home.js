// home.html: the full-page wallet with MetaMask's hash routes.
'use strict';

let timer = null;
let shown = ''; // route and lock state on screen: re-rendering the same screen would drop typed input
const onboarding = { mnemonic: '', flow: 'import', metametrics: false }; // kept in page memory only

// go redirects without adding a history entry, then renders.
function go(route) {
  history.replaceState(null, '', `#${route}`);
  return routeTo();
}

async function routeTo() {
  const state = await send({ type: 'state' });
  const r = location.hash.replace(/^#\/?/, '');
  // The screens after the wallet exists: completion, then pin-extension.
  const afterOnboarding = r === 'onboarding/completion' || r === 'onboarding/pin-extension';
  if (!state.hasVault) {
    if (!r.startsWith('onboarding/') || afterOnboarding) return go('onboarding/welcome');
  } else if (!state.unlocked) {
    if (r !== 'unlock') return go('unlock');
  } else if (r === 'unlock' || (r.startsWith('onboarding/') && !afterOnboarding)) {
    return go('');
  }
  const key = `${r}|${state.unlocked}|${state.hasVault}`;
  if (key === shown) return;
  shown = key;
  clearInterval(timer);
  const screens = {
    'unlock': () => unlockForm(() => go('')),
    'onboarding/welcome': welcome,
    'onboarding/metametrics': metametrics,
    'onboarding/import-with-recovery-phrase': importSRP,
    'onboarding/create-password': createPassword,
    'onboarding/completion': completion,
    'onboarding/pin-extension': pinExtension,
    'settings': settings,
  };
  // Like React's error boundary in MetaMask: a screen that fails to render
  // (a state the UI cannot read) shows the error page.
  try {
    show((screens[r] || home)(state));
  } catch (err) {
    console.error('render:', err);
    show(errorPage(err));
  }
}

function errorPage(err) {
  return h('section', { class: 'error-page' },
    h('h1', {}, 'MetaMask encountered an error'),
    h('p', {}, 'This message may be helpful: try again by closing and reopening the popup, or reload the page.'),
    h('details', {},
      h('summary', {}, 'Error details'),
      h('ul', {},
        h('li', {}, `Message: ${err && err.message}`),
        h('li', {}, `Stack: ${(err && err.stack) || ''}`))),
    h('button', { onclick: () => location.reload() }, 'Try again'));
}

function metametrics() {
  const choose = (participate) => () => {
    onboarding.metametrics = participate;
    location.hash = onboarding.flow === 'import' ? 'onboarding/import-with-recovery-phrase' : 'onboarding/create-password';
  };
  return h('main', { class: 'onboarding' },
    h('h1', {}, 'Help us improve MetaMask'),
    h('p', {}, 'We would like to gather basic usage data to improve our product. You can opt out at any time in Settings.'),
    h('div', { class: 'row' },
      h('button', { testid: 'metametrics-no-thanks', class: 'secondary', onclick: choose(false) }, 'No thanks'),
      h('button', { testid: 'metametrics-i-agree', onclick: choose(true) }, 'I agree')));
}

function pinExtension() {
  const step = h('p', {}, 'Pin MetaMask on your browser so it\'s accessible and easy to view transaction confirmations.');
  const done = h('button', { testid: 'pin-extension-done', hidden: true, onclick: () => go('') }, 'Done');
  const next = h('button', { testid: 'pin-extension-next', onclick() {
    step.textContent = 'Open MetaMask with one click: pin it from the extensions menu of your browser.';
    next.hidden = true;
    done.hidden = false;
  } }, 'Next');
  return h('main', { class: 'onboarding' },
    h('h1', {}, 'Your MetaMask install is complete!'), step, next, done);
}

function welcome() {
  const terms = h('input', { type: 'checkbox', id: 'terms', testid: 'onboarding-terms-checkbox',
    onchange: () => { importBtn.disabled = createBtn.disabled = !terms.checked; } });
  // MetaMask asks about metrics before the wallet is imported or created.
  const importBtn = h('button', { testid: 'onboarding-import-wallet', disabled: true,
    onclick: () => { onboarding.flow = 'import'; location.hash = 'onboarding/metametrics'; } }, 'Import an existing wallet');
  const createBtn = h('button', { testid: 'onboarding-create-wallet', disabled: true,
    onclick: () => { onboarding.flow = 'create'; onboarding.mnemonic = ''; location.hash = 'onboarding/metametrics'; } }, 'Create a new wallet');
  return h('main', { class: 'onboarding' },
    h('h1', {}, "Let's get started"),
    h('p', {}, 'Trusted by millions, MetaMask is a secure wallet making the world of web3 accessible to all.'),
    h('div', { class: 'row' }, terms, h('label', { for: 'terms' }, "I agree to MetaMask's Terms of use")),
    createBtn, importBtn);
}

function importSRP() {
  const words = [];
  const confirm = h('button', { testid: 'import-srp-confirm', disabled: true, onclick() {
    onboarding.mnemonic = words.map((w) => w.value.trim().toLowerCase()).join(' ');
    location.hash = 'onboarding/create-password';
  } }, 'Confirm Secret Recovery Phrase');
  const update = () => { confirm.disabled = words.some((w) => !w.value.trim()); };
  // fill spreads a pasted phrase over the word inputs, starting at index from.
  const fill = (text, from = 0) => {
    text.trim().split(/\s+/).slice(0, 12 - from).forEach((w, i) => { words[from + i].value = w; });
    update();
  };
  for (let i = 0; i < 12; i++) {
    words.push(h('input', { type: 'password', id: `srp-${i}`, testid: `import-srp__srp-word-${i}`, autocomplete: 'off',
      autofocus: i === 0,
      oninput: (e) => (/\s/.test(e.target.value.trim()) ? fill(e.target.value, i) : update()) }));
  }
  const error = h('p', { role: 'alert', testid: 'import-srp-error' });
  const paste = h('button', { testid: 'srp-input-import__paste-button', async onclick() {
    try {
      fill(await navigator.clipboard.readText());
      error.textContent = '';
    } catch (err) {
      error.textContent = `Could not read the clipboard: ${err.message}`;
    }
  } }, 'Paste');
  return h('main', { class: 'onboarding' },
    h('h1', {}, 'Access your wallet with your Secret Recovery Phrase'),
    h('p', {}, 'Type or paste your 12-word Secret Recovery Phrase.'),
    paste,
    h('ol', { class: 'srp-grid' }, words.map((w, i) => h('li', {}, h('label', { for: `srp-${i}` }, `${i + 1}.`), w))),
    error, confirm);
}

function createPassword() {
  const pw = h('input', { type: 'password', id: 'pw-new', testid: 'create-password-new', autocomplete: 'new-password', autofocus: true });
  const pw2 = h('input', { type: 'password', id: 'pw-confirm', testid: 'create-password-confirm', autocomplete: 'new-password' });
  const terms = h('input', { type: 'checkbox', id: 'pw-terms', testid: 'create-password-terms' });
  const error = h('p', { role: 'alert', testid: 'create-password-error' });
  const submit = h('button', { testid: 'create-password-import', disabled: true, async onclick() {
    submit.disabled = true;
    error.textContent = 'Creating your wallet...';
    const res = await send({ type: 'onboard', mnemonic: onboarding.mnemonic, password: pw.value, metametrics: onboarding.metametrics });
    onboarding.mnemonic = '';
    if (res && res.ok) return go('onboarding/completion');
    error.textContent = (res && res.error) || 'Could not create the wallet';
    submit.disabled = false;
  } }, 'Import my wallet');
  const update = () => {
    const mismatch = pw2.value && pw.value !== pw2.value;
    error.textContent = mismatch ? "Passwords don't match" : pw.value && pw.value.length < 8 ? 'Password must be at least 8 characters' : '';
    submit.disabled = mismatch || pw.value.length < 8 || pw.value !== pw2.value || !terms.checked;
  };
  for (const el of [pw, pw2, terms]) el.addEventListener('input', update);
  terms.addEventListener('change', update);
  return h('main', { class: 'onboarding' },
    h('h1', {}, 'Create password'),
    h('p', {}, 'This password will unlock your MetaMask wallet only on this device.'),
    h('label', { for: 'pw-new' }, 'New password (8 characters min)'), pw,
    h('label', { for: 'pw-confirm' }, 'Confirm password'), pw2,
    h('div', { class: 'row' }, terms, h('label', { for: 'pw-terms' }, 'I understand that MetaMask cannot recover this password for me.')),
    error, submit);
}

function completion() {
  return h('main', { class: 'onboarding' },
    h('h1', {}, 'Your wallet is ready'),
    h('p', {}, 'Keep your Secret Recovery Phrase safe.'),
    h('button', { testid: 'onboarding-complete-done', onclick: () => go('onboarding/pin-extension') }, 'Got it'));
}

function copyButton(testid, label, text) {
  return h('button', { testid, 'aria-label': 'Copy', title: label,
    onclick: () => navigator.clipboard.writeText(text).catch(() => {}) }, 'Copy');
}

function home(state) {
  const { address, network } = state;
  const balanceText = (wei) => (wei ? formatBalance(wei, network.ticker) : `- ${network.ticker}`);
  // As MetaMask's UI renders from a store that holds the last balance
  // read, the home shows the one the service worker last read, then reads
  // it again: the screen changes only when the balance did.
  const balance = h('span', { testid: 'eth-overview__primary-currency' }, balanceText(state.lastBalance));
  const panel = h('section', { 'aria-live': 'polite' });
  const toggle = (title, ...content) => {
    const open = panel.dataset.title === title;
    panel.dataset.title = open ? '' : title;
    panel.replaceChildren(...(open ? [] : [h('h2', {}, title), ...content]));
  };
  const refresh = async () => {
    const res = await send({ type: 'rpc', method: 'eth_getBalance', params: [address, 'latest'] });
    const text = balanceText(res && res.result);
    // as React does, the DOM is left alone when nothing changed
    if (balance.textContent !== text) balance.textContent = text;
  };
  refresh();
  clearInterval(timer);
  timer = setInterval(refresh, 2000);
  return h('main', { class: 'home' },
    h('header', { class: 'row' },
      h('button', { testid: 'network-display' }, network.name),
      h('button', { testid: 'account-menu-icon', onclick: () => openAccountMenu(address) }, shorten(address)),
      h('button', { testid: 'account-options-menu-button', 'aria-label': 'Account options',
        onclick: () => toggle('Account options', h('p', {}, 'Account 1'), h('p', { class: 'mono' }, address)) }, '⋮')),
    h('nav', { class: 'row' },
      h('button', { testid: 'global-menu-settings', onclick: () => { location.hash = 'settings'; } }, 'Settings'),
      h('button', { testid: 'global-menu-lock', onclick: async () => { await send({ type: 'lock' }); go('unlock'); } }, 'Lock')),
    h('section', { class: 'overview' },
      h('h1', {}, 'Account 1'),
      h('p', { class: 'row' }, h('span', { class: 'mono' }, address), copyButton('copy-address', 'Copy address', address)),
      h('p', { class: 'row' }, h('span', {}, `${network.name} (${network.chainId})`), copyButton('copy-network', 'Copy network', network.rpcUrl)),
      h('p', { class: 'balance' }, balance),
      h('div', { class: 'row' },
        h('button', { testid: 'eth-overview-send', onclick: () => toggle('Send',
          h('p', {}, 'Sending from the test wallet is not supported; use a dapp.')) }, 'Send'),
        h('button', { testid: 'eth-overview-receive', onclick: () => toggle('Receive',
          h('p', { class: 'mono' }, address)) }, 'Receive'))),
    homeTabs(network),
    panel);
}

// openAccountMenu opens MetaMask's account menu: an mm-modal on the
// document body, outside the routed screen, so it stays open over any
// screen a hash navigation shows (settings too) until its close button or
// the backdrop closes it.
function openAccountMenu(address) {
  if (document.querySelector('.multichain-account-menu-popover')) return;
  const close = () => modal.remove();
  const modal = h('div', { class: 'mm-modal multichain-account-menu-popover' },
    h('div', { class: 'mm-modal-overlay', onclick: close }),
    h('section', { class: 'mm-modal-content', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'account-menu-title' },
      h('header', { class: 'row' },
        h('h2', { id: 'account-menu-title' }, 'Select an account'),
        h('button', { class: 'mm-button-icon', 'aria-label': 'Close', onclick: close }, '×')),
      h('button', { class: 'multichain-account-list-item', onclick: close },
        'Account 1 ', h('span', { class: 'mono' }, shorten(address)))));
  document.body.append(modal);
}

// homeTabs are MetaMask's Tokens / NFTs / Activity tabs.
function homeTabs(network) {
  const body = h('div', { role: 'tabpanel' });
  const tabs = [
    ['account-overview__asset-tab', 'Tokens', () => h('p', {}, `${network.ticker} on ${network.name}`)],
    ['account-overview__nfts-tab', 'NFTs', () => h('p', {}, 'No NFTs yet')],
    ['account-overview__activity-tab', 'Activity', () => h('p', {}, 'You have no transactions')],
  ];
  const buttons = tabs.map(([testid, label, content]) => h('button', { testid, role: 'tab', onclick() {
    buttons.forEach((b) => b.setAttribute('aria-selected', String(b === this)));
    body.replaceChildren(content());
  } }, label));
  buttons[0].setAttribute('aria-selected', 'true');
  body.replaceChildren(tabs[0][2]());
  return h('section', { class: 'tabs' }, h('div', { class: 'row', role: 'tablist' }, buttons), body);
}

function settings(state) {
  const box = h('input', { type: 'checkbox', id: 'show-test-networks', testid: 'show-test-networks',
    onchange: () => chrome.storage.local.set({ testwalletShowTestNetworks: box.checked }) });
  chrome.storage.local.get('testwalletShowTestNetworks').then((v) => { box.checked = !!v.testwalletShowTestNetworks; });
  return h('main', { class: 'settings' },
    // MetaMask's close button has no testid, only this class.
    h('button', { testid: 'settings-back', class: 'settings-page__header__title-container__close-button', 'aria-label': 'Back',
      onclick: () => { location.hash = ''; } }, '← Back'),
    h('h1', {}, 'Settings'),
    h('div', { class: 'row' }, box, h('label', { for: 'show-test-networks' }, 'Show test networks')),
    h('p', {}, 'Background build: ', h('span', { testid: 'settings-background-build' }, state.build || '')));
}

chrome.runtime.onMessage.addListener((msg) => {
  if (msg.type !== 'changed') return;
  const r = location.hash.replace(/^#\/?/, '');
  if (msg.unlocked ? r === 'unlock' : r !== 'unlock' && !r.startsWith('onboarding/')) routeTo();
});
window.addEventListener('hashchange', routeTo);
routeTo();
