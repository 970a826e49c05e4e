// What the wallet's confirmation screen shows, read in mmcp's isolated
// world of the popup: the test wallet's confirm-* testids first, then
// MetaMask 11.16.7's confirmation screens (legacy confirm-page-container,
// signature-request, permissions connect, confirmation pages).
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
  const tid = (id) => `[data-testid="${id}"]`;
  const has = (id) => !!q(tid(id));
  const route = location.hash.replace(/^#\/?/, '');
  const out = {
    route,
    title: first('[role=dialog] h1', '.page-container__title', '.confirm-page-container-summary__action__name', '.request-signature__header__text', '.permissions-connect-header__title', 'h2', 'h1'),
    origin: first(tid('confirm-origin'), '.confirm-page-container-summary__origin', '.request-signature__origin', '.signature-request-header__origin', '.permissions-connect-header__subtitle', '.confirmation-page__origin', '.site-origin'),
    to: first(tid('confirm-to'), '.sender-to-recipient__party--recipient .sender-to-recipient__name', '.sender-to-recipient__party--recipient'),
    amount: first(tid('confirm-amount'), '.confirm-page-container-summary__title-text', '.confirm-page-container-summary__title'),
    recipient: first(tid('confirm-recipient')),
    spender: first(tid('confirm-spender'), '.confirm-approve-content__address-display-content', '.token-allowance-container .confirm-approve-content__address'),
    cap: first(tid('confirm-cap'), tid('custom-spending-cap-input'), '.custom-spending-cap__input input'),
    network: first(tid('confirm-network'), tid('network-display'), '.confirm-page-container-header__network', '.signature-request-header__network'),
    chainId: first(tid('confirm-chain-id')),
    fee: first(tid('confirm-fee'), '.confirm-page-container-content__gas-fee .currency-display-component__text', '.transaction-detail-item__detail-values .currency-display-component__text', tid('edit-gas-fee-item-estimate')),
    data: first(tid('confirm-data'), '.confirm-page-container-content__data-box .confirm-page-container-content__data-field'),
    message: first(tid('confirm-message'), '.signature-request-message', '.request-signature__rows', '.request-signature__row-value', '.signature-request-data'),
  };
  const approve = ['page-container-footer-next', 'confirmation-submit-button', 'confirm-footer-button', 'signature-sign-button'].find(has) || '';
  const reject = ['page-container-footer-cancel', 'confirmation-cancel-button', 'confirm-footer-cancel-button', 'signature-cancel-button'].find(has) || '';
  out.approveTestId = approve;
  out.rejectTestId = reject;
  if (/^connect\//.test(route)) out.step = /confirm-permissions$/.test(route) ? 'permissions' : 'choose-account';
  return out;
})()
