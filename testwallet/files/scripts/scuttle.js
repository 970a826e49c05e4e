// Mimics LavaMoat scuttling in real MetaMask test builds: main-world code that
// touches these globals fails, so automation must not depend on them.
'use strict';
for (const name of ['HTMLInputElement', 'HTMLButtonElement']) {
  Object.defineProperty(globalThis, name, {
    configurable: false,
    get() {
      throw new Error(`LavaMoat - property "${name}" of globalThis is inaccessible under scuttling mode`);
    },
  });
}
