// Main-world globals become inaccessible, as LavaMoat scuttling does in real
// MetaMask test builds: page-side helpers must run in an isolated world, and
// the main-world app-state read may touch nothing but window.stateHooks.
const define = Object.defineProperty;
for (const name of ['HTMLInputElement', 'HTMLElement', 'JSON', 'Object', 'Array', 'BigInt', 'Map']) {
  define(globalThis, name, {
    get() { throw new Error('LavaMoat - property "' + name + '" of globalThis is inaccessible under scuttling mode'); },
    configurable: false,
  });
}
