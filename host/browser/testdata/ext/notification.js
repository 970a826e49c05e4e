document.body.addEventListener('click', (e) => {
  const id = e.target.getAttribute('data-testid');
  if (id === 'close-self' || id === 'confirm-footer-button') {
    window.close();
  }
});
