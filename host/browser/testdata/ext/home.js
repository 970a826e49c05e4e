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
  return '<header><button data-testid="account-menu-icon" data-address="0x5CfE73b6021E818B776b421B1c4Db2474086a7e1">Account 1</button>' +
    '<div data-testid="network-display" data-chain-id="0x539">Localhost 8545</div></header>' +
    '<main><span data-testid="eth-overview__primary-currency">25 ETH</span>' +
    '<button data-testid="open-notification">Open notification</button>' +
    '<button data-testid="open-offscreen-notification">Open off screen</button>' +
    '<button data-testid="lock">Lock</button></main>';
}

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
  } else if (id === 'lock') {
    localStorage.removeItem('unlocked');
    render();
  }
});

window.addEventListener('hashchange', render);
render();
