const app = document.getElementById('app');
const PASSWORD = 'test-password';

function view() {
  const hash = location.hash.replace(/^#/, '');
  if (hash.startsWith('settings')) {
    return '<h1>Settings</h1><button data-testid="settings-back">Back</button>';
  }
  if (!localStorage.getItem('unlocked')) {
    if (hash !== '/unlock') {
      location.hash = '#/unlock';
      return null;
    }
    return '<h1>Welcome back</h1>' +
      '<input data-testid="unlock-password" type="password" aria-label="Password">' +
      '<button data-testid="unlock-submit">Unlock</button>' +
      '<p data-testid="unlock-error"></p>';
  }
  if (hash === '/unlock') {
    location.hash = '#/';
    return null;
  }
  // MetaMask 11.16's home markup: no data-address or data-chain-id, the
  // account shown shortened.
  return '<header><button data-testid="account-menu-icon">Account 1</button>' +
    '<button data-testid="address-copy-button-text">0x5CfE7...86a7e1</button>' +
    '<div data-testid="network-display">Localhost 8545</div></header>' +
    '<main><span data-testid="eth-overview__primary-currency">25\nETH</span>' +
    '<button data-testid="open-notification">Open notification</button>' +
    '<button data-testid="open-offscreen-notification">Open off screen</button>' +
    '<button data-testid="log-benign">Log benign lines</button>' +
    '<button data-testid="log-error">Log an error</button>' +
    '<button data-testid="log-errors-on">Log errors every 100 ms</button>' +
    '<button data-testid="open-account-menu">Open the account menu</button>' +
    '<button data-testid="open-sticky-modal">Open a modal without a close button</button>' +
    '<button data-testid="lock">Lock</button></main>';
}

// window.stateHooks.getCleanAppState as MetaMask 11.16's UI installs it: the
// Redux state, with `metamask` in the layout of its default fixture.
window.stateHooks = {
  getCleanAppState: async () => ({
    metamask: {
      isUnlocked: !!localStorage.getItem('unlocked'),
      internalAccounts: {
        selectedAccount: 'd5e45e4a-3b04-4a09-a5e1-39762e5c6be4',
        accounts: { 'd5e45e4a-3b04-4a09-a5e1-39762e5c6be4': { address: '0x5cfe73b6021e818b776b421b1c4db2474086a7e1', metadata: { name: 'Account 1' } } },
      },
      providerConfig: { type: 'rpc', chainId: '0x539', nickname: 'Localhost 8545', ticker: 'ETH', rpcUrl: 'http://localhost:8545' },
      accounts: { '0x5cfe73b6021e818b776b421b1c4db2474086a7e1': { address: '0x5cfe73b6021e818b776b421b1c4db2474086a7e1', balance: '0x15af1d78b58c40000' } },
      pendingApprovals: {},
    },
  }),
};

function render() {
  const html = view();
  if (html !== null) app.innerHTML = html;
}

app.addEventListener('click', (e) => {
  const id = e.target.getAttribute('data-testid');
  if (id === 'unlock-submit') {
    const pw = document.querySelector('[data-testid="unlock-password"]').value;
    if (pw === PASSWORD) {
      localStorage.setItem('unlocked', '1');
      location.hash = '#/';
      render();
    } else {
      document.querySelector('[data-testid="unlock-error"]').textContent = 'Incorrect password';
    }
  } else if (id === 'open-notification') {
    chrome.runtime.sendMessage({ type: 'open-notification' });
  } else if (id === 'open-offscreen-notification') {
    chrome.runtime.sendMessage({ type: 'open-offscreen-notification' });
  } else if (id === 'log-benign') {
    chrome.runtime.sendMessage({ type: 'log-benign' });
    console.error("This browser doesn't support requestAnimationFrame. Make sure that you load a polyfill in older browsers.");
  } else if (id === 'log-error') {
    console.error('early failure: logged before the wait');
  } else if (id === 'log-errors-on') {
    let n = 0;
    const t = setInterval(() => {
      console.error("This browser doesn't support requestAnimationFrame.");
      console.error('real failure: the request was dropped');
      if (++n >= 50) clearInterval(t);
    }, 100);
  } else if (id === 'open-account-menu') {
    // MetaMask's account menu: a modal outside the app's root, so it
    // stays over every screen until closed.
    const m = document.createElement('div');
    m.className = 'mm-modal multichain-account-menu-popover';
    m.style.cssText = 'position:fixed;inset:0;z-index:10';
    m.innerHTML = '<div class="mm-modal-overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>' +
      '<section class="mm-modal-content" role="dialog" style="position:fixed;top:0;left:0;width:200px;height:40px;background:#fff">' +
      '<button class="mm-button-icon" aria-label="Close">x</button></section>';
    m.querySelector('button').addEventListener('click', () => m.remove());
    document.body.appendChild(m);
  } else if (id === 'open-sticky-modal') {
    // A modal with no close control: nothing mmcp may click to close it.
    const m = document.createElement('div');
    m.className = 'mm-modal';
    m.style.cssText = 'position:fixed;inset:0;z-index:10;background:rgba(0,0,0,.3)';
    m.innerHTML = '<section class="mm-modal-content" role="dialog">Please wait for the network</section>';
    document.body.appendChild(m);
  } else if (id === 'lock') {
    localStorage.removeItem('unlocked');
    render();
  }
});

window.addEventListener('hashchange', render);
render();
