// The UI asks the background for its state and never gets it: the spinner
// stays, as on a MetaMask build whose background failed.
chrome.runtime.sendMessage({ method: 'getState' }, (res) => {
  console.error('mmcp-test: UI could not reach a working background: ' + (res && res.error));
});
