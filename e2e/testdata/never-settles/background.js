// The background fails to load its state, as a MetaMask build does with a
// state it cannot migrate; every UI connection gets the same error.
chrome.runtime.onMessage.addListener((msg, _sender, reply) => {
  console.error('mmcp-test: background failed to load the wallet state');
  reply({ error: 'background failed' });
});
