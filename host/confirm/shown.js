// What the wallet's confirmation screen shows, read in mmcp's isolated
// world of the popup: the test wallet's confirm-* testids first, then
// MetaMask 11.16.7's confirmation screens as a real test build renders
// them (legacy confirm-page-container, signature request, permissions
// connect, confirmation pages). Their facts: the action name is
// upper-cased by CSS (its text is read, not its rendering); the amount
// follows a ticker avatar inside .confirm-page-container-summary__title
// (only the currency display's value is the amount); the recipient is
// .name__value, shortened; a personal_sign message is the row value behind
// a "Message:" row title; the connect popup names its origin in a header
// paragraph without a class of its own.
(() => {
  const q = (sel) => {
    try {
      return document.querySelector(sel);
    } catch {
      return null;
    }
  };
  const text = (el) => {
    if (!el) return '';
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) return el.value.trim();
    return (el.innerText || el.textContent || '').trim();
  };
  const first = (...sels) => {
    for (const s of sels) {
      const t = text(q(s));
      if (t) return t;
    }
    return '';
  };
  // firstContent is like first, but reads the text as written (not as
  // CSS renders it: MetaMask upper-cases headings).
  const firstContent = (...sels) => {
    for (const s of sels) {
      const el = q(s);
      const t = el ? (el.textContent || '').trim() : '';
      if (t) return t;
    }
    return '';
  };
  // amountOf is a currency display's value: its title, else its text.
  const amountOf = (sel) => {
    const el = q(sel);
    if (!el) return '';
    return (el.getAttribute('title') || '').trim() || text(el.querySelector('.currency-display-component__text'));
  };
  // connectOrigin is the connect popup's origin: the header paragraph
  // that holds a URL.
  const connectOrigin = () => {
    for (const p of document.querySelectorAll('.permissions-connect p')) {
      const t = text(p);
      if (/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(t)) return t;
    }
    return '';
  };
  // rows are a signature request's row values, one a line.
  const rows = () => [...document.querySelectorAll('.request-signature__row-value')].map(text).filter(Boolean).join('\n');
  const tid = (id) => `[data-testid="${id}"]`;
  const has = (id) => !!q(tid(id));
  const route = location.hash.replace(/^#\/?/, '');
  const out = {
    route,
    title: firstContent('[role=dialog] h1', '.page-container__title', '.confirm-page-container-summary__action__name', '.request-signature__content__title', '.request-signature__header__text', '.permissions-connect h3', '.permissions-connect-header__title', 'h2', 'h1'),
    origin: first(tid('confirm-origin'), '.confirm-page-container-summary__origin', '.request-signature__origin .chip__label', '.request-signature__origin', '.signature-request-header__origin', '.permissions-connect-header__subtitle', '.confirmation-page__origin', '.site-origin') || connectOrigin(),
    to: first(tid('confirm-to'), '.sender-to-recipient__party--recipient .name__value', '.sender-to-recipient__party--recipient .sender-to-recipient__name', '.sender-to-recipient__party--recipient'),
    amount: first(tid('confirm-amount')) || amountOf('.confirm-page-container-summary__title .currency-display-component') || first('.confirm-page-container-summary__title'),
    recipient: first(tid('confirm-recipient')),
    spender: first(tid('confirm-spender'), '.confirm-approve-content__address-display-content', '.token-allowance-container .confirm-approve-content__address'),
    cap: first(tid('confirm-cap'), tid('custom-spending-cap-input'), '.custom-spending-cap__input input'),
    network: first(tid('confirm-network'), tid('network-display'), '.confirm-page-container-header__network', '.signature-request-header__network'),
    chainId: first(tid('confirm-chain-id')),
    fee: first(tid('confirm-fee'), '.confirm-page-container-content__gas-fee .currency-display-component__text', '.transaction-detail-item__detail-values .currency-display-component__text', tid('edit-gas-fee-item-estimate')),
    data: first(tid('confirm-data'), '.confirm-page-container-content__data-box .confirm-page-container-content__data-field'),
    message: first(tid('confirm-message')) || rows() || first('.signature-request-message', '.signature-request-data'),
  };
  const approve = ['page-container-footer-next', 'confirmation-submit-button', 'confirm-footer-button', 'signature-sign-button'].find(has) || '';
  const reject = ['page-container-footer-cancel', 'confirmation-cancel-button', 'confirm-footer-cancel-button', 'signature-cancel-button'].find(has) || '';
  out.approveTestId = approve;
  out.rejectTestId = reject;
  if (/^connect\//.test(route)) out.step = /confirm-permissions$/.test(route) ? 'permissions' : 'choose-account';
  return out;
})()
