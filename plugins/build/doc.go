// Package build is the built-in Build capability: it runs the workspace's
// build command (default `yarn build:test`) and reports where the extension
// was built. Its output is streamed to the host as log and progress events,
// never to stdout.
package build
