// Main-world globals become inaccessible, as LavaMoat scuttling does in real
// MetaMask test builds: page-side helpers must run in an isolated world.
for (const name of ['HTMLInputElement', 'HTMLElement']) {
  Object.defineProperty(globalThis, name, {
    get() { throw new Error('LavaMoat - property "' + name + '" of globalThis is inaccessible under scuttling mode'); },
    configurable: false,
  });
}
